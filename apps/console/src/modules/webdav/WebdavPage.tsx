/** WebDAV: servers (listen address, HTTP or HTTPS, prefix, mounts, the mount URL to copy, live figures, status, switch, log, edit, delete), add/edit, settings. */
import { Badge, CopyButton, Group, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
import type { webdavRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import { RefusedFigure, RuleFigures } from '../../kit/rule-list/RuleFigures';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { figuresText, mountLines } from './form';
import { webdavText } from './i18n';
import { storageChoicesQuery } from './queries';
import { RuleForm } from './RuleForm';
import { webdavRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Row = RuleViewOf<typeof webdavRoutes>;

const mono = { fontFamily: 'monospace' } as const;

const columns: RuleColumn<Row>[] = [
  { head: webdavText('colName'), td: { maw: 200 }, cell: (r) => <NameCell r={r} /> },
  { head: webdavText('colListen'), td: { maw: 200 }, cell: (r) => <ListenCell r={r} /> },
  { head: webdavText('colMounts'), td: { maw: 220 }, cell: (r) => <MountsCell r={r} /> },
  { head: webdavText('colUrl'), td: { maw: 280 }, cell: (r) => <UrlCell r={r} /> },
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

function MountsCell({ r }: { r: Row }) {
  const storages = useQuery(storageChoicesQuery()).data?.list;
  return (
    <Stack gap={0} data-testid="webdav-row-mounts">
      {mountLines(r.mounts, storages, webdavText).map((line) => (
        <Text key={line} fz="xs" style={{ wordBreak: 'break-all' }}>
          {line}
        </Text>
      ))}
    </Stack>
  );
}

/** The address a client mounts, copied on click. */
function UrlCell({ r }: { r: Row }) {
  if (!r.url) return <Text fz="xs" c="dimmed" data-testid="webdav-url" data-url="">-</Text>;
  return (
    <CopyButton value={r.url}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? webdavText('copied') : webdavText('copyHint')} withArrow>
          <UnstyledButton onClick={copy} fz="sm" style={{ ...mono, wordBreak: 'break-all' }} data-testid="webdav-url" data-url={r.url}>
            {r.url}
          </UnstyledButton>
        </Tooltip>
      )}
    </CopyButton>
  );
}

function FiguresCell({ r }: { r: Row }) {
  const s = r.figures;
  const f = figuresText(s);
  return (
    <RuleFigures
      quiet={s.connections === 0 && s.requests === 0 && s.denied === 0}
      quietText={webdavText('noTraffic')}
      lines={[
        [
          { text: webdavText('connections', { n: s.connections }), testId: 'webdav-fig-connections', value: s.connections },
          { text: webdavText('requests', { n: s.requests }), testId: 'webdav-fig-requests', value: s.requests },
        ],
        [
          { text: `↑ ${webdavText('bytesIn', { v: f.bytesIn })}`, testId: 'webdav-fig-in', value: s.bytesIn },
          { text: `↓ ${webdavText('bytesOut', { v: f.bytesOut })}`, testId: 'webdav-fig-out', value: s.bytesOut },
        ],
      ]}
    >
      {s.denied > 0 && (
        <Tooltip label={webdavText('deniedHint')}>
          <div>
            <RefusedFigure count={s.denied} text={webdavText('denied', { n: s.denied })} testId="webdav-fig-denied" />
          </div>
        </Tooltip>
      )}
    </RuleFigures>
  );
}
