/** Port forwarding: rule list (listen, targets, engine status, live figures, switch), add/edit, log, settings. */
import { Badge, Group, Text, Tooltip } from '@mantine/core';
import type { portforwardRoutes } from '@lucky/contracts';
import { RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import { RefusedFigure, RuleFigures } from '../../kit/rule-list/RuleFigures';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { figuresText, hostText, portCount } from './form';
import { pfText } from './i18n';
import { RuleForm } from './RuleForm';
import { pfRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Row = RuleViewOf<typeof portforwardRoutes>;

const mono = { fontFamily: 'monospace' } as const;

const columns: RuleColumn<Row>[] = [
  { head: pfText('colName'), td: { maw: 220 }, cell: (r) => <NameCell r={r} /> },
  { head: pfText('colListen'), td: { maw: 220 }, cell: (r) => <ListenCell r={r} /> },
  { head: pfText('colTargets'), td: { maw: 240 }, cell: (r) => <TargetsCell r={r} /> },
  { head: pfText('colStatus'), td: { maw: 260 }, cell: (r) => <StatusCell r={r} /> },
  { head: pfText('colFigures'), td: { 'data-testid': 'pf-figures' }, cell: (r) => <FiguresCell r={r} /> },
];

export function PortforwardPage() {
  return <RulePage rules={pfRules} columns={columns} Form={RuleForm} Settings={SettingsForm} />;
}

function NameCell({ r }: { r: Row }) {
  return (
    <RuleNameCell name={r.name} note={r.note} testId={pfRules.testIds.rowName}>
      <Group gap={4} mt={2}>
        {r.types.map((ty) => (
          <Badge key={ty} size="xs" variant="outline" tt="none" color={ty.startsWith('tcp') ? 'blue' : 'grape'}>
            {ty}
          </Badge>
        ))}
        {(r.tls.listen || r.tls.target) && (
          <Badge size="xs" variant="light" color="teal" tt="none">
            {pfText('tlsBadge')}
          </Badge>
        )}
        {r.proxyProtocol !== 'off' && (
          <Badge size="xs" variant="light" color="gray" tt="none">
            {pfText('proxyBadge', { v: r.proxyProtocol })}
          </Badge>
        )}
        {r.filter.mode !== 'off' && (
          <Badge size="xs" variant="light" color="orange" tt="none">
            {pfText(`filter.${r.filter.mode}`)}
          </Badge>
        )}
      </Group>
    </RuleNameCell>
  );
}

function ListenCell({ r }: { r: Row }) {
  const count = portCount(r.listenPorts);
  const every = r.listenHost === '';
  return (
    <>
      <Text fz="sm" style={{ ...mono, wordBreak: 'break-all' }} data-testid="pf-row-listen">
        {every ? '*' : hostText(r.listenHost)}:{r.listenPorts.replace(/\s+/g, '')}
      </Text>
      <Text fz="xs" c="dimmed">
        {every ? pfText('allAddresses') : ''}
        {every && count > 1 ? ' · ' : ''}
        {count > 1 ? pfText('portsN', { n: count }) : ''}
      </Text>
    </>
  );
}

function TargetsCell({ r }: { r: Row }) {
  return (
    <>
      <Text fz="sm" style={{ ...mono, wordBreak: 'break-all' }} data-testid="pf-row-targets">
        {r.targets.map((h) => (
          <span key={h} style={{ display: 'block' }}>
            {hostText(h)}:{r.targetPorts.replace(/\s+/g, '')}
          </span>
        ))}
      </Text>
      {r.targets.length > 1 && (
        <Text fz="xs" c="dimmed">
          {pfText('targetsFailover', { n: r.targets.length })}
        </Text>
      )}
    </>
  );
}

function StatusCell({ r }: { r: Row }) {
  const s = r.stats;
  const listeners = r.enable && (
    <Tooltip label={pfText('listenersHint')}>
      <Text fz="xs" c={s.listeners < s.listenersWanted ? 'red' : 'dimmed'} data-testid="pf-listeners" style={{ whiteSpace: 'nowrap' }}>
        {pfText('listeners', { v: figuresText(s).listeners })}
      </Text>
    </Tooltip>
  );
  return <RuleStatusCell status={r.status} text={pfText} testIds={pfRules.testIds} aside={listeners} />;
}

function FiguresCell({ r }: { r: Row }) {
  const s = r.stats;
  const f = figuresText(s);
  return (
    <RuleFigures
      quiet={s.totalConnections === 0 && s.udpSessions === 0 && s.bytesIn === 0 && s.bytesOut === 0 && f.refused === 0}
      quietText={pfText('noTraffic')}
      lines={[
        [
          { text: pfText('tcpConns', { n: s.tcpConnections }), testId: 'pf-fig-tcp', value: s.tcpConnections },
          { text: pfText('udpSessions', { n: s.udpSessions }), testId: 'pf-fig-udp', value: s.udpSessions },
          { text: pfText('totalConns', { n: s.totalConnections }), testId: 'pf-fig-total', value: s.totalConnections },
        ],
        [
          { text: `↑ ${pfText('bytesIn', { v: f.bytesIn })}`, testId: 'pf-fig-in', value: s.bytesIn, hint: pfText('bytesInHint') },
          { text: `↓ ${pfText('bytesOut', { v: f.bytesOut })}`, testId: 'pf-fig-out', value: s.bytesOut, hint: pfText('bytesOutHint') },
        ],
      ]}
    >
      <RefusedFigure count={f.refused} text={pfText('refused', { limit: s.refusedByLimit, filter: s.refusedByFilter })} testId="pf-fig-refused" />
    </RuleFigures>
  );
}
