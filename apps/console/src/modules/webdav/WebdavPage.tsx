/** WebDAV: servers (listen address, HTTP or HTTPS, prefix, mounts, the mount URL to copy, live figures, status, switch, log, edit, delete), add/edit, settings. */
import { Badge, Group, Text } from '@mantine/core';
import type { webdavRoutes } from '@lucky/contracts';
import { RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { MountsCell, TrafficCell, UrlCell } from '../../kit/storage/cells';
import { webdavText } from './i18n';
import { RuleForm } from './RuleForm';
import { webdavRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Row = RuleViewOf<typeof webdavRoutes>;

const mono = { fontFamily: 'monospace' } as const;

const columns: RuleColumn<Row>[] = [
  { head: webdavText('colName'), td: { maw: 200 }, cell: (r) => <NameCell r={r} /> },
  { head: webdavText('colListen'), td: { maw: 200 }, cell: (r) => <ListenCell r={r} /> },
  { head: webdavText('colMounts'), td: { maw: 220 }, cell: (r) => <MountsCell mounts={r.mounts} testPrefix="webdav" /> },
  { head: webdavText('colUrl'), td: { maw: 280 }, cell: (r) => <UrlCell url={r.url} testPrefix="webdav" /> },
  { head: webdavText('colStatus'), td: { maw: 240 }, cell: (r) => <RuleStatusCell status={r.status} text={webdavText} testIds={webdavRules.testIds} /> },
  { head: webdavText('colFigures'), td: { 'data-testid': 'webdav-figures' }, cell: (r) => <FiguresCell r={r} /> },
];

export function WebdavPage() {
  return <RulePage rules={webdavRules} columns={columns} rowProps={(r) => ({ 'data-name': r.name })} Form={RuleForm} Settings={SettingsForm} />;
}

function NameCell({ r }: { r: Row }) {
  return (
    <RuleNameCell name={r.name} note={r.note} testId={webdavRules.testIds.rowName}>
      <Group gap={4} mt={2}>
        <Badge size="xs" variant="light" color={r.tls ? 'teal' : 'gray'} tt="none" data-testid="webdav-row-scheme">
          {r.tls ? 'HTTPS' : 'HTTP'}
        </Badge>
      </Group>
    </RuleNameCell>
  );
}

function ListenCell({ r }: { r: Row }) {
  return (
    <>
      <Text fz="sm" style={mono} data-testid="webdav-row-listen">
        {r.address ? (r.address.includes(':') ? `[${r.address}]` : r.address) : '*'}:{r.port}
      </Text>
      {!r.address && (
        <Text fz="xs" c="dimmed">
          {webdavText('allAddresses')}
        </Text>
      )}
      <Text fz="xs" c="dimmed" style={mono} data-testid="webdav-row-prefix">
        {r.prefix}
      </Text>
    </>
  );
}

function FiguresCell({ r }: { r: Row }) {
  const s = r.figures;
  return (
    <TrafficCell
      figures={s}
      activity={{ text: webdavText('requests', { n: s.requests }), testId: 'webdav-fig-requests', value: s.requests }}
      quiet={s.connections === 0 && s.requests === 0 && s.denied === 0}
      quietText={webdavText('noTraffic')}
      deniedHint={webdavText('deniedHint')}
      testPrefix="webdav"
    />
  );
}
