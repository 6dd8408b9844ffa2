/** FTP server: servers (listen address, passive range, FTPS, mounts, the address to copy, live figures, status, switch, log, edit, delete), add/edit, settings. */
import { Badge, CopyButton, Group, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
import type { ftpserverRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import { RefusedFigure, RuleFigures } from '../../kit/rule-list/RuleFigures';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { figuresText, mountLines } from './form';
import { ftpText } from './i18n';
import { storageChoicesQuery } from './queries';
import { RuleForm } from './RuleForm';
import { ftpRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Row = RuleViewOf<typeof ftpserverRoutes>;

const mono = { fontFamily: 'monospace' } as const;

const columns: RuleColumn<Row>[] = [
  { head: ftpText('colName'), td: { maw: 200 }, cell: (r) => <NameCell r={r} /> },
  { head: ftpText('colListen'), td: { maw: 200 }, cell: (r) => <ListenCell r={r} /> },
  { head: ftpText('colMounts'), td: { maw: 220 }, cell: (r) => <MountsCell r={r} /> },
  { head: ftpText('colUrl'), td: { maw: 280 }, cell: (r) => <UrlCell r={r} /> },
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

function MountsCell({ r }: { r: Row }) {
  const storages = useQuery(storageChoicesQuery()).data?.list;
  return (
    <Stack gap={0} data-testid="ftp-row-mounts">
      {mountLines(r.mounts, storages, ftpText).map((line) => (
        <Text key={line} fz="xs" style={{ wordBreak: 'break-all' }}>
          {line}
        </Text>
      ))}
    </Stack>
  );
}

/** The address a client mounts, copied on click. */
function UrlCell({ r }: { r: Row }) {
  if (!r.url) return <Text fz="xs" c="dimmed" data-testid="ftp-url" data-url="">-</Text>;
  return (
    <CopyButton value={r.url}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? ftpText('copied') : ftpText('copyHint')} withArrow>
          <UnstyledButton onClick={copy} fz="sm" style={{ ...mono, wordBreak: 'break-all' }} data-testid="ftp-url" data-url={r.url}>
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
      quiet={s.connections === 0 && s.commands === 0 && s.denied === 0}
      quietText={ftpText('noTraffic')}
      lines={[
        [
          { text: ftpText('connections', { n: s.connections }), testId: 'ftp-fig-connections', value: s.connections },
          { text: ftpText('sessions', { n: s.sessions }), testId: 'ftp-fig-sessions', value: s.sessions },
        ],
        [
          { text: `↑ ${ftpText('bytesIn', { v: f.bytesIn })}`, testId: 'ftp-fig-in', value: s.bytesIn },
          { text: `↓ ${ftpText('bytesOut', { v: f.bytesOut })}`, testId: 'ftp-fig-out', value: s.bytesOut },
        ],
      ]}
    >
      {s.denied > 0 && (
        <Tooltip label={ftpText('deniedHint')}>
          <div>
            <RefusedFigure count={s.denied} text={ftpText('denied', { n: s.denied })} testId="ftp-fig-denied" />
          </div>
        </Tooltip>
      )}
    </RuleFigures>
  );
}
