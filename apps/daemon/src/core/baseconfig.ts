/**
 * lucky_base.lkcf: the base settings and the admin account, nothing else, so that deleting it resets
 * the login and the settings and leaves module data (lucky.db) alone, as the console's hint says.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_ADMIN_PORT,
  MODULE_KEYS,
  ZBaseConfigFile,
  formatIssues,
  type BaseConfigFile,
  type BaseSettings,
  type ModuleKey,
} from '@lucky/contracts';
import { writeFileAtomic } from './atomicfile.js';
import { hashPassword, randomPassword } from './password.js';

export const BASE_CONFIG_FILE = 'lucky_base.lkcf';

/** The daemon refuses to start on this: the message names the file and the field. */
export class BaseConfigError extends Error {}

export function defaultSettings(): BaseSettings {
  return {
    AdminWebListenHost: '::',
    AdminWebListenPort: DEFAULT_ADMIN_PORT,
    AdminAccount: 'admin',
    LogLevel: 4,
    LogMaxSize: 2048,
    FrontendDisableAutoExpandLeftMenu: false,
    AllowInternetAccess: false,
    EnabledModules: [...MODULE_KEYS],
    SessionIdleHours: 24 * 7,
    MetricsAllowFrom: [],
    // Nothing is fetched from outside unless the operator names a feed.
    InfoFeedUrl: '',
  };
}

type Listener = (next: BaseConfigFile, prev: BaseConfigFile) => void;

export class BaseConfigStore {
  private listeners: Listener[] = [];

  constructor(
    readonly file: string,
    private current: BaseConfigFile,
  ) {}

  get(): Readonly<BaseConfigFile> {
    return this.current;
  }

  isModuleEnabled(key: ModuleKey): boolean {
    return this.current.EnabledModules.includes(key);
  }

  twoFAEnabled(): boolean {
    return this.current.TwoFASecret !== '';
  }

  /** Validates the whole result, writes it atomically, and only then makes it current. */
  update(patch: Partial<BaseConfigFile>): BaseConfigFile {
    const merged = { ...this.current, ...patch };
    const parsed = ZBaseConfigFile.safeParse(merged);
    if (!parsed.success) throw new BaseConfigError(formatIssues(ZBaseConfigFile, merged, 'en_US'));
    writeFileAtomic(this.file, JSON.stringify(parsed.data, null, 2) + '\n');
    const prev = this.current;
    this.current = parsed.data;
    for (const fn of this.listeners) fn(this.current, prev);
    return this.current;
  }

  onChange(fn: Listener): () => void {
    this.listeners.push(fn);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== fn);
    };
  }
}

export interface OpenBaseConfigOptions {
  dataDir: string;
  /** LUCKY_ADMIN_USER / LUCKY_ADMIN_PASSWORD: the first-start account when set. */
  initialAccount?: string;
  initialPassword?: string;
  /** Values given on the command line or in the environment; they win over the file and are saved. */
  overrides?: Partial<BaseSettings>;
}

export interface OpenedBaseConfig {
  store: BaseConfigStore;
  /** True when the file did not exist and was written now. */
  created: boolean;
  /** Set only when a random password was generated: to be shown once. */
  generatedPassword?: string;
}

/** Module keys that were renamed: a file (or backup) written before still loads. */
const RENAMED_MODULES: Record<string, ModuleKey> = { ftp: 'ftpserver' };

/** The stored form brought up to date before it is validated (renamed module keys). */
export function upgradeBaseConfig<T>(raw: T): T {
  if (!raw || typeof raw !== 'object' || !Array.isArray((raw as { EnabledModules?: unknown }).EnabledModules)) return raw;
  const list = (raw as unknown as { EnabledModules: unknown[] }).EnabledModules.map((k) => (typeof k === 'string' && k in RENAMED_MODULES ? RENAMED_MODULES[k] : k));
  return { ...raw, EnabledModules: [...new Set(list)] };
}

export function readBaseConfigFile(file: string): BaseConfigFile {
  let raw: unknown;
  try {
    raw = upgradeBaseConfig(JSON.parse(readFileSync(file, 'utf8')) as unknown);
  } catch (err) {
    throw new BaseConfigError(`${file} is not valid JSON (${(err as Error).message}); fix it or delete it to reset the login and settings`);
  }
  const parsed = ZBaseConfigFile.safeParse(raw);
  if (!parsed.success) {
    throw new BaseConfigError(
      `${file}: ${formatIssues(ZBaseConfigFile, raw, 'en_US')}; fix it or delete it to reset the login and settings`,
    );
  }
  return parsed.data;
}

export async function openBaseConfig(opts: OpenBaseConfigOptions): Promise<OpenedBaseConfig> {
  const file = join(opts.dataDir, BASE_CONFIG_FILE);
  if (existsSync(file)) {
    const store = new BaseConfigStore(file, readBaseConfigFile(file));
    const overrides = opts.overrides ?? {};
    const changed = Object.entries(overrides).some(([k, v]) => store.get()[k as keyof BaseSettings] !== v);
    if (changed) store.update(overrides);
    return { store, created: false };
  }
  const generated = opts.initialPassword ? undefined : randomPassword();
  const password = opts.initialPassword ?? generated!;
  const settings: BaseSettings = {
    ...defaultSettings(),
    ...(opts.initialAccount ? { AdminAccount: opts.initialAccount } : {}),
    ...opts.overrides,
  };
  const initial = { version: 1 as const, ...settings, AdminPasswordHash: await hashPassword(password), TwoFASecret: '' };
  const parsed = ZBaseConfigFile.safeParse(initial);
  if (!parsed.success) throw new BaseConfigError(`initial settings: ${formatIssues(ZBaseConfigFile, initial, 'en_US')}`);
  writeFileAtomic(file, JSON.stringify(parsed.data, null, 2) + '\n');
  return { store: new BaseConfigStore(file, parsed.data), created: true, ...(generated ? { generatedPassword: generated } : {}) };
}
