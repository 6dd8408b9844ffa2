// Makes a fresh checkout runnable with nothing but Node and npm: finds or installs pnpm,
// installs the workspace when the lockfile changed, builds with turbo.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { log, root } from './where.mjs';
import { ensureSqliteBinding } from './sqlitebinding.mjs';

export { log, root };
const PNPM_VERSION = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
const localPnpm = join(root, '.tools', 'pnpm', 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');

// turbo looks pnpm up on PATH, so the local copy's bin folder goes there too.
const localBin = join(root, '.tools', 'pnpm', 'node_modules', '.bin');
export const env = { ...process.env, PATH: `${localBin}${process.platform === 'win32' ? ';' : ':'}${process.env.PATH ?? ''}` };

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts, env: { ...env, ...opts.env } });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function must(cmd, args, opts) {
  const code = run(cmd, args, opts);
  if (code !== 0) {
    log(`failed: ${cmd} ${args.join(' ')} (exit ${code})`);
    process.exit(code);
  }
}

function versionOf(cmd, args) {
  const r = spawnSync(cmd, [...args, '--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Returns [command, leadingArgs] that runs pnpm at the pinned version. */
export function pnpm() {
  if (versionOf('pnpm', []) === PNPM_VERSION) return ['pnpm', []];
  if (existsSync(localPnpm) && versionOf(process.execPath, [localPnpm]) === PNPM_VERSION) {
    return [process.execPath, [localPnpm]];
  }
  // A local copy rather than `npm i -g`: no root needed, nothing outside the checkout changes.
  log(`installing pnpm ${PNPM_VERSION} into .tools/pnpm`);
  mkdirSync(join(root, '.tools', 'pnpm'), { recursive: true });
  must('npm', ['install', '--no-save', '--no-package-lock', '--prefix', join(root, '.tools', 'pnpm'), `pnpm@${PNPM_VERSION}`]);
  return [process.execPath, [localPnpm]];
}

function installFingerprint() {
  const h = createHash('sha256');
  h.update(process.version);
  for (const f of ['pnpm-lock.yaml', 'pnpm-workspace.yaml', 'package.json', 'packages/contracts/package.json', 'apps/daemon/package.json', 'apps/console/package.json']) {
    const p = join(root, f);
    h.update(f);
    if (existsSync(p)) h.update(readFileSync(p));
  }
  return h.digest('hex');
}

/** The Node running this script, as sqlitebinding.mjs and ltsnode.mjs describe a Node. */
export const thisNode = {
  bin: process.execPath,
  version: process.versions.node,
  abi: process.versions.modules,
  platform: process.platform,
  arch: process.arch,
};

export function install() {
  const stamp = join(root, 'node_modules', '.lucky-install');
  const want = installFingerprint();
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
    const [cmd, pre] = pnpm();
    const frozen = existsSync(join(root, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : [];
    log('installing dependencies');
    must(cmd, [...pre, 'install', ...frozen], { env: { npm_config_nodedir: '' } });
    writeFileSync(stamp, installFingerprint());
  }
  // After an install and on every start alike: an install under a new Node can leave (or take
  // from pnpm's side-effects cache) better-sqlite3 as built for the previous one.
  nativeDependencies(thisNode);
}

/** better-sqlite3 built for `node` (thisNode or ltsnode.mjs's); stops with the reason when it cannot be. */
export function nativeDependencies(node, nodedir) {
  try {
    ensureSqliteBinding({ node: node.bin, facts: node, nodedir });
  } catch (err) {
    log(`${err.message}`);
    process.exit(1);
  }
}

/** The daemon's own addons for `node`, into its ABI's folder (incremental: nothing to do when built). */
export function nativeAddons(node) {
  must(node.bin, [join(root, 'apps', 'daemon', 'scripts', 'build-native.mjs')]);
}

export function turbo(task, extra = []) {
  const [cmd, pre] = pnpm();
  must(cmd, [...pre, 'exec', 'turbo', 'run', task, '--output-logs=errors-only', ...extra], {
    env: { TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1', DO_NOT_TRACK: '1' },
  });
}

export function build() {
  install();
  turbo('build');
  // turbo replays a cached build made under another Node: this one's addons may still be missing.
  nativeAddons(thisNode);
}
