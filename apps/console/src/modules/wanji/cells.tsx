/**
 * What the fleet list and a device's page show of a device: online state, version, load, modules,
 * health. Plain elements with Mantine's colour variables: the list draws a few hundred rows at once,
 * and Mantine's components cost that many times over (bench/wanji measures it).
 */
import type { CSSProperties, ReactNode } from 'react';
import { MODULES, type wanjiRoutes } from '@lucky/contracts';
import { lang, SHELL_TABLES } from '../../i18n';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { formatBytes } from '../../lib/helpers';
import { agoParts, formatUptime, ruleTotals } from './form';
import { wanjiText } from './i18n';
import { Sparkline } from './Sparkline';

export type Device = RuleViewOf<typeof wanjiRoutes>;

const ONLINE_COLOR = { online: 'green', offline: 'red', unknown: 'gray' } as const;

/** A module's name: the shell's `module.<key>`, else its page title (`route.<route>`), else its key. */
export function moduleLabel(key: string): string {
  const shell: Record<string, string> = SHELL_TABLES[lang];
  const route = MODULES.find((m) => m.key === key)?.route.slice(1);
  return shell[`module.${key}`] ?? (route ? shell[`route.${route}`] : undefined) ?? key;
}

export const uptimeText = (s: number) => formatUptime(s, { d: wanjiText('unit.d'), h: wanjiText('unit.h'), min: wanjiText('unit.min'), s: wanjiText('unit.s') });

export function agoText(at: number): string {
  const { n, unit } = agoParts(Date.now() - at);
  return wanjiText('ago', { n, unit: wanjiText(`unit.${unit}`) });
}

/** A small coloured label, as Mantine's light (or filled) badge looks. */
export function Pill(props: { color: string; filled?: boolean; children: ReactNode; testId?: string; state?: string }) {
  const style: CSSProperties = {
    display: 'inline-block',
    padding: '1px 8px',
    borderRadius: 999,
    fontSize: 11,
    fontWeight: 700,
    lineHeight: '18px',
    whiteSpace: 'nowrap',
    background: props.filled ? `var(--mantine-color-${props.color}-filled)` : `var(--mantine-color-${props.color}-light)`,
    color: props.filled ? 'var(--mantine-color-white)' : `var(--mantine-color-${props.color}-light-color)`,
  };
  return (
    <span style={style} data-testid={props.testId} data-state={props.state}>
      {props.children}
    </span>
  );
}

const column: CSSProperties = { display: 'flex', flexDirection: 'column', alignItems: 'flex-start', gap: 2 };
const line: CSSProperties = { display: 'flex', alignItems: 'center', gap: 6, flexWrap: 'nowrap' };
const wrapLine: CSSProperties = { display: 'flex', alignItems: 'center', gap: 4, flexWrap: 'wrap' };
export const small: CSSProperties = { fontSize: 'var(--mantine-font-size-xs)' };
export const dimmed: CSSProperties = { ...small, color: 'var(--mantine-color-dimmed)' };
const none = <span style={{ color: 'var(--mantine-color-dimmed)' }}>-</span>;

/** Online, offline or not polled yet (switched off: the kit's "disabled"); since when, and why not. */
export function OnlineCell({ d }: { d: Device }) {
  const s = d.state;
  const state = d.enable ? s.online : 'disabled';
  return (
    <div style={column}>
      <Pill color={state === 'disabled' ? 'gray' : ONLINE_COLOR[s.online]} filled={state === 'online'} testId="wanji-online" state={state}>
        {wanjiText(`online.${state}`)}
      </Pill>
      {s.lastSeen !== null && (
        <span style={dimmed} data-testid="wanji-lastseen">
          {wanjiText('lastSeen', { ago: agoText(s.lastSeen) })}
        </span>
      )}
      {d.enable && s.error && (
        <span style={{ ...small, color: 'var(--mantine-color-red-text)', wordBreak: 'break-word' }} data-testid="wanji-error">
          {s.error}
        </span>
      )}
    </div>
  );
}

/** The version, the scope of the token when it only reads, the uptime. */
export function VersionCell({ d }: { d: Device }) {
  const s = d.state;
  if (!s.version) return none;
  return (
    <div style={column}>
      <div style={line}>
        <span style={{ fontFamily: 'monospace', fontSize: 'var(--mantine-font-size-sm)' }} data-testid="wanji-version">
          {s.version}
        </span>
        {s.scope === 'read' && (
          <Pill color="orange" testId="wanji-readonly">
            {wanjiText('scope.read')}
          </Pill>
        )}
      </div>
      {s.uptime !== null && <span style={dimmed}>{wanjiText('up', { time: uptimeText(s.uptime) })}</span>}
    </div>
  );
}

/** CPU and memory now, with the last samples as small lines. */
export function LoadCell({ d }: { d: Device }) {
  const s = d.state;
  if (s.cpu === null || s.memory === null) return none;
  return (
    <div style={column} data-testid="wanji-load">
      <div style={line}>
        <span style={{ ...small, width: 64 }}>{wanjiText('cpu', { n: s.cpu.toFixed(1) })}</span>
        <Sparkline values={s.history.cpu} max={100} testId="wanji-spark-cpu" />
      </div>
      <div style={line}>
        <span style={{ ...small, width: 64 }}>{wanjiText('mem', { n: s.memory.toFixed(1) })}</span>
        <Sparkline values={s.history.memory} max={100} color="var(--mantine-color-grape-6)" testId="wanji-spark-mem" />
      </div>
      {s.rss !== null && <span style={dimmed}>{wanjiText('rss', { size: formatBytes(s.rss) })}</span>}
    </div>
  );
}

/** The modules switched on there, by name (all of them on hover). */
export function ModulesCell({ d }: { d: Device }) {
  const names = d.state.modules.map(moduleLabel);
  if (names.length === 0) return none;
  return (
    <span style={small} title={names.join(', ')} data-testid="wanji-modules" data-modules={d.state.modules.join(',')}>
      {wanjiText('modulesOn', { n: names.length })}
    </span>
  );
}

/** Rules all told and in error; DDNS tasks failing; certificates near expiry (where those modules are on). */
export function HealthCell({ d }: { d: Device }) {
  const s = d.state;
  if (!s.version) return none;
  const { total, errors } = ruleTotals(s);
  return (
    <div style={wrapLine} data-testid="wanji-health" data-rules={total} data-errors={errors}>
      <Pill color="gray">{wanjiText('rulesN', { n: total })}</Pill>
      <Pill color={errors > 0 ? 'red' : 'green'} testId="wanji-errors">
        {wanjiText('errorsN', { n: errors })}
      </Pill>
      {s.ddnsFailing !== null && s.ddnsFailing > 0 && (
        <Pill color="red" testId="wanji-ddns-failing">
          {wanjiText('ddnsFailing', { n: s.ddnsFailing })}
        </Pill>
      )}
      {s.certsExpiring !== null && s.certsExpiring > 0 && (
        <Pill color="orange" testId="wanji-certs-expiring">
          {wanjiText('certsExpiring', { n: s.certsExpiring })}
        </Pill>
      )}
    </div>
  );
}

/** The name (a link to the device's page), its address, group and tags, note. */
export function NameCell({ d }: { d: Device }) {
  return (
    <div style={column}>
      <a href={`#/wanjiadmin/${d.key}`} style={{ fontWeight: 500, fontSize: 'var(--mantine-font-size-sm)', color: 'var(--mantine-color-anchor)' }} data-testid="wanji-open">
        {d.name}
      </a>
      <span style={{ ...dimmed, fontFamily: 'monospace', maxWidth: 240, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} title={d.url}>
        {d.url}
      </span>
      {(d.group || d.tags.length > 0) && (
        <div style={wrapLine}>
          {d.group && <Pill color="blue">{d.group}</Pill>}
          {d.tags.map((t) => (
            <Pill key={t} color="gray">
              {t}
            </Pill>
          ))}
        </div>
      )}
      {d.note && (
        <span style={{ ...dimmed, maxWidth: 240, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} title={d.note}>
          {d.note}
        </span>
      )}
    </div>
  );
}
