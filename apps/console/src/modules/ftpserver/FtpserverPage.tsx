/** FTP server: servers (listen address, passive range, FTPS, mounts, the address to copy, live figures, status, switch, log, edit, delete), add/edit, settings. */
import { Badge, Group, Text } from '@mantine/core';
import type { ftpserverRoutes } from '@lucky/contracts';
import { RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { MountsCell, TrafficCell, UrlCell } from '../../kit/storage/cells';
import { ftpText } from './i18n';
import { RuleForm } from './RuleForm';
import { ftpRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Row = RuleViewOf<typeof ftpserverRoutes>;

const mono = { fontFamily: 'monospace' } as const;

const columns: RuleColumn<Row>[] = [
  { head: ftpText('colName'), td: { maw: 200 }, cell: (r) => <NameCell r={r} /> },
  { head: ftpText('colListen'), td: { maw: 200 }, cell: (r) => <ListenCell r={r} /> },
  { head: ftpText('colMounts'), td: { maw: 220 }, cell: (r) => <MountsCell mounts={r.mounts} testPrefix="ftp" /> },
  { head: ftpText('colUrl'), td: { maw: 280 }, cell: (r) => <UrlCell url={r.url} testPrefix="ftp" /> },
  { head: ftpText('colStatus'), td: { maw: 240 }, cell: (r) => <RuleStatusCell status={r.status} text={ftpText} testIds={ftpRules.testIds} /> },
  { head: ftpText('colFigures'), td: { 'data-testid': 'ftp-figures' }, cell: (r) => <FiguresCell r={r} /> },
];

export function FtpserverPage() {
  return <RulePage rules={ftpRules} columns={columns} rowProps={(r) => ({ 'data-name': r.name })} Form={RuleForm} Settings={SettingsForm} />;
}

function NameCell({ r }: { r: Row }) {
  return (
    <RuleNameCell name={r.name} note={r.note} testId={ftpRules.testIds.rowName}>
      <Group gap={4} mt={2}>
        <Badge size="xs" variant="light" color={r.tls !== 'off' ? 'teal' : 'gray'} tt="none" data-testid="ftp-row-scheme">
          {r.tls === 'off' ? 'FTP' : r.tls === 'explicit' ? 'FTPES' : 'FTPS'}
        </Badge>
      </Group>
    </RuleNameCell>
  );
}

function ListenCell({ r }: { r: Row }) {
  return (
    <>
      <Text fz="sm" style={mono} data-testid="ftp-row-listen">
        {r.address ? (r.address.includes(':') ? `[${r.address}]` : r.address) : '*'}:{r.port}
      </Text>
      {!r.address && (
        <Text fz="xs" c="dimmed">
          {ftpText('allAddresses')}
        </Text>
      )}
      <Text fz="xs" c="dimmed" data-testid="ftp-row-passive">
        {ftpText('passiveRange', { min: r.pasvMin, max: r.pasvMax })}
      </Text>
    </>
  );
}

function FiguresCell({ r }: { r: Row }) {
  const s = r.figures;
  return (
    <TrafficCell
      figures={s}
      activity={{ text: ftpText('sessions', { n: s.sessions }), testId: 'ftp-fig-sessions', value: s.sessions }}
      quiet={s.connections === 0 && s.commands === 0 && s.denied === 0}
      quietText={ftpText('noTraffic')}
      deniedHint={ftpText('deniedHint')}
      testPrefix="ftp"
    />
  );
}
