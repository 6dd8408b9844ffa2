/** STUN NAT traversal: rule list (local port, public address, router mappings, live figures, status, switch, recheck, log), add/edit, settings, NAT test. */
import { Badge, Button, CopyButton, Group, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
import type { StunMapping, stunRoutes } from '@lucky/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { formatTime } from '../../kit/form/values';
import { RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import { RefusedFigure, RuleFigures } from '../../kit/rule-list/RuleFigures';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { figuresText, localPortText } from './form';
import { stunText } from './i18n';
import { NatTestButton } from './NatTestDialog';
import { RuleForm } from './RuleForm';
import { stunRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Row = RuleViewOf<typeof stunRoutes>;

const mono = { fontFamily: 'monospace' } as const;
const MAPPING_COLOR: Record<StunMapping['state'], string> = { pending: 'blue', ok: 'green', failed: 'red' };

const columns: RuleColumn<Row>[] = [
  { head: stunText('colName'), td: { maw: 220 }, cell: (r) => <NameCell r={r} /> },
  { head: stunText('colLocal'), td: { maw: 200 }, cell: (r) => <LocalCell r={r} /> },
  { head: stunText('colPublic'), td: { maw: 240 }, cell: (r) => <PublicCell r={r} /> },
  { head: stunText('colMapping'), td: { maw: 220 }, cell: (r) => <MappingCell r={r} /> },
  { head: stunText('colStatus'), td: { maw: 240 }, cell: (r) => <RuleStatusCell status={r.status} text={stunText} testIds={stunRules.testIds} /> },
  { head: stunText('colFigures'), td: { 'data-testid': 'stun-figures' }, cell: (r) => <FiguresCell r={r} /> },
];

export function StunPage() {
  return (
    <RulePage
      rules={stunRules}
      columns={columns}
      actions={(r) => <RecheckButton r={r} />}
      tools={(_rows, enabled) => <NatTestButton enabled={enabled} />}
      Form={RuleForm}
      Settings={SettingsForm}
    />
  );
}

function NameCell({ r }: { r: Row }) {
  return (
    <RuleNameCell name={r.name} note={r.note} testId={stunRules.testIds.rowName}>
      <Group gap={4} mt={2}>
        <Badge size="xs" variant="outline" tt="none" color={r.protocol === 'tcp' ? 'blue' : 'grape'} data-testid="stun-row-protocol">
          {r.protocol.toUpperCase()}
        </Badge>
        <Badge size="xs" variant="light" tt="none" color={r.mode === 'forward' ? 'teal' : 'gray'} data-testid="stun-row-mode" data-mode={r.mode}>
          {stunText(`mode.${r.mode}`)}
        </Badge>
      </Group>
    </RuleNameCell>
  );
}

/** The local port really in use (the system's choice for 0), and where forwarded traffic goes. */
function LocalCell({ r }: { r: Row }) {
  const local = localPortText(r, stunText);
  return (
    <>
      <Text fz="sm" style={mono} data-testid="stun-row-local" data-port={local.port}>
        {r.listenHost || '*'}:{local.port}
      </Text>
      {local.hint && (
        <Text fz="xs" c="dimmed">
          {local.hint}
        </Text>
      )}
      {r.mode === 'forward' && (
        <Text fz="xs" c="dimmed" style={{ ...mono, wordBreak: 'break-all' }} data-testid="stun-row-target">
          → {r.targetHost}:{r.targetPort}
        </Text>
      )}
    </>
  );
}

/** The public address, copied on click, with the server that answered and the last change under it. */
function PublicCell({ r }: { r: Row }) {
  const s = r.stun;
  if (!s.publicAddr) {
    return (
      <Text fz="xs" c="dimmed" data-testid="stun-public" data-addr="">
        {r.enable && r.status.state === 'running' ? stunText('waitingAddr') : stunText('notRunning')}
      </Text>
    );
  }
  return (
    <Stack gap={0}>
      <CopyButton value={s.publicAddr}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? stunText('copied') : stunText('copyHint')} withArrow>
            <UnstyledButton onClick={copy} fz="sm" fw={500} style={mono} data-testid="stun-public" data-addr={s.publicAddr}>
              {s.publicAddr}
            </UnstyledButton>
          </Tooltip>
        )}
      </CopyButton>
      {s.server && (
        <Text fz="xs" c="dimmed" data-testid="stun-public-server">
          {stunText('fromServer', { server: s.server })}
        </Text>
      )}
      {s.lastChange !== null && (
        <Text fz="xs" c="dimmed" data-testid="stun-last-change">
          {stunText('lastChange', { time: formatTime(s.lastChange) })}
          {s.changes > 1 ? ` · ${stunText('changes', { n: s.changes })}` : ''}
        </Text>
      )}
    </Stack>
  );
}

/** UPnP and NAT-PMP mappings asked of the router: state, external port, and why one failed. */
function MappingCell({ r }: { r: Row }) {
  const asked = [r.upnp.enable && 'upnp', r.natpmp.enable && 'natpmp'].filter(Boolean);
  if (r.stun.mappings.length === 0) {
    return (
      <Text fz="xs" c="dimmed" data-testid="stun-mapping" data-kinds={asked.join(',')}>
        {asked.length === 0 ? stunText('noMapping') : asked.map((k) => stunText(`mapping.${k as StunMapping['kind']}`)).join(' · ')}
      </Text>
    );
  }
  return (
    <Stack gap={2} data-testid="stun-mapping" data-kinds={asked.join(',')}>
      {r.stun.mappings.map((m) => (
        <div key={m.kind}>
          <Group gap={4} wrap="nowrap">
            <Badge size="xs" variant="light" tt="none" color={MAPPING_COLOR[m.state]} data-testid={`stun-mapping-${m.kind}`} data-state={m.state}>
              {stunText(`mapping.${m.kind}`)} · {stunText(`mappingState.${m.state}`)}
            </Badge>
            {m.externalPort !== null && (
              <Text fz="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                {stunText('mappingExternal', { port: m.externalPort })}
              </Text>
            )}
          </Group>
          {m.state === 'ok' && (
            <Text fz="xs" c="dimmed">
              {m.gateway}
              {' · '}
              {m.expires === null ? stunText('mappingPermanent') : stunText('mappingExpires', { time: formatTime(m.expires) })}
            </Text>
          )}
          {m.reason && (
            <Text fz="xs" c="red" style={{ wordBreak: 'break-word' }}>
              {m.reason}
            </Text>
          )}
        </div>
      ))}
    </Stack>
  );
}

function FiguresCell({ r }: { r: Row }) {
  const s = r.stun;
  const f = figuresText(s);
  const current = r.protocol === 'tcp' ? { text: stunText('connections', { n: s.connections }), testId: 'stun-fig-current', value: s.connections } : { text: stunText('sessions', { n: s.sessions }), testId: 'stun-fig-current', value: s.sessions };
  return (
    <RuleFigures
      quiet={s.totalConnections === 0 && s.bytesIn === 0 && s.bytesOut === 0 && f.refused === 0}
      quietText={stunText('noTraffic')}
      lines={[
        [current, { text: stunText('totalConns', { n: s.totalConnections }), testId: 'stun-fig-total', value: s.totalConnections }],
        [
          { text: `↑ ${stunText('bytesIn', { v: f.bytesIn })}`, testId: 'stun-fig-in', value: s.bytesIn, hint: stunText('bytesInHint') },
          { text: `↓ ${stunText('bytesOut', { v: f.bytesOut })}`, testId: 'stun-fig-out', value: s.bytesOut, hint: stunText('bytesOutHint') },
        ],
      ]}
    >
      <RefusedFigure count={f.refused} text={stunText('refused', { limit: s.refusedByLimit, filter: s.refusedByFilter })} testId="stun-fig-refused" />
      {s.lastCheck !== null && (
        <Text fz="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {stunText('lastCheck', { time: formatTime(s.lastCheck) })}
        </Text>
      )}
    </RuleFigures>
  );
}

/** Asks the STUN servers again now; the answer's figures replace the row's. */
function RecheckButton({ r }: { r: Row }) {
  const queryClient = useQueryClient();
  const recheck = useMutation({
    mutationFn: () => call(stunRules.routes.recheck, { params: { key: r.key } }),
    onSuccess: (answer) => pushNotice(answer.msg, 'green'),
    onSettled: () => queryClient.invalidateQueries({ queryKey: stunRules.queries.keys.rules }),
  });
  return (
    <Tooltip label={stunText('recheckHint')}>
      <Button size="xs" onClick={() => recheck.mutate()} disabled={!r.enable || r.status.state !== 'running'} loading={recheck.isPending} data-testid="stun-recheck">
        {stunText('recheck')}
      </Button>
    </Tooltip>
  );
}
