/**
 * Fleet actions on a selection of devices, each with its own result: push a rule (typed, or copied
 * from a device and edited), compare one module's rules of two devices, check versions.
 */
import { Alert, Badge, Button, Checkbox, Group, Modal, Select, Stack, Table, Tabs, Text, Textarea } from '@mantine/core';
import { MODULE_CONTRACTS, wanjiRoutes, type ModuleKey, type WanjiCompareRow, type WanjiDeviceResult } from '@lucky/contracts';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, call } from '../../api';
import { mono } from '../../kit/fields/styles';
import { TableHead } from '../../kit/table/TableHead';
import { parseRuleJson, ruleJson } from './form';
import { wanjiText } from './i18n';
import { remoteRulesQuery } from './queries';
import { wanjiRules } from './ruleModule';
import { moduleLabel, type Device } from './cells';

type Tab = 'push' | 'compare' | 'versions';

/** Modules whose rules can be pushed and compared: every module with rules but this one. */
const RULE_MODULES = (Object.keys(MODULE_CONTRACTS) as ModuleKey[]).filter((m) => m !== 'wanji');
const moduleOptions = RULE_MODULES.map((m) => ({ value: m, label: moduleLabel(m) }));

const failure = (e: unknown) => (e instanceof ApiError ? e.message : String(e));

export function FleetDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const list = useQuery({ ...wanjiRules.queries.list(), enabled: opened });
  const devices = ((list.data?.list ?? []) as Device[]).filter((d) => d.enable);
  const [tab, setTab] = useState<Tab>('push');
  return (
    <Modal opened={opened} onClose={onClose} title={wanjiText('fleetActions')} size={1000} data-testid="wanji-fleet">
      <Tabs value={tab} onChange={(t) => t && setTab(t as Tab)} keepMounted={false}>
        <Tabs.List mb="md">
          {(['push', 'compare', 'versions'] as const).map((t) => (
            <Tabs.Tab key={t} value={t} data-testid={`wanji-fleet-tab-${t}`}>
              {wanjiText(`fleet.${t}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="push">
          <PushPanel devices={devices} />
        </Tabs.Panel>
        <Tabs.Panel value="compare">
          <ComparePanel devices={devices} />
        </Tabs.Panel>
        <Tabs.Panel value="versions">
          <VersionsPanel devices={devices} />
        </Tabs.Panel>
      </Tabs>
    </Modal>
  );
}

/** Devices to act on, switched-on ones only; all or none at once. */
function DevicePicker({ devices, value, onChange }: { devices: Device[]; value: string[]; onChange: (keys: string[]) => void }) {
  return (
    <Stack gap={4}>
      <Group gap="xs">
        <Text fz="sm" fw={500}>
          {wanjiText('devices')}
        </Text>
        <Button size="compact-xs" variant="subtle" onClick={() => onChange(devices.map((d) => d.key))} data-testid="wanji-pick-all">
          {wanjiText('pickAll')}
        </Button>
        <Button size="compact-xs" variant="subtle" onClick={() => onChange([])}>
          {wanjiText('pickNone')}
        </Button>
      </Group>
      <Checkbox.Group value={value} onChange={onChange}>
        <Group gap="md" data-testid="wanji-picker">
          {devices.map((d) => (
            <Checkbox key={d.key} value={d.key} label={`${d.name}${d.state.online === 'offline' ? ` (${wanjiText('online.offline')})` : ''}`} data-testid="wanji-pick" data-name={d.name} />
          ))}
        </Group>
      </Checkbox.Group>
    </Stack>
  );
}

function ResultsTable({ results, testId }: { results: readonly (WanjiDeviceResult & { version?: string; behind?: boolean })[]; testId: string }) {
  return (
    <Table data-testid={testId} striped>
      <TableHead titles={[wanjiText('colDevice'), wanjiText('colResult'), wanjiText('colDetail')]} />
      <Table.Tbody>
        {results.map((r) => (
          <Table.Tr key={r.device} data-testid="wanji-result" data-name={r.name} data-ok={String(r.ok)} data-behind={r.behind === undefined ? undefined : String(r.behind)}>
            <Table.Td>{r.name || r.device}</Table.Td>
            <Table.Td>
              <Badge color={!r.ok ? 'red' : r.behind ? 'orange' : 'green'} variant="light" tt="none">
                {wanjiText(!r.ok ? 'result.failed' : r.behind ? 'result.behind' : 'result.ok')}
              </Badge>
            </Table.Td>
            <Table.Td fz="sm" style={{ wordBreak: 'break-word' }} data-testid="wanji-result-msg">
              {r.msg}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function PushPanel({ devices }: { devices: Device[] }) {
  const [module, setModule] = useState<ModuleKey>('wol');
  const [from, setFrom] = useState<string | null>(null);
  const [json, setJson] = useState(ruleJson({ name: '' }));
  const [picked, setPicked] = useState<string[]>([]);
  const source = useQuery({ ...remoteRulesQuery(from ?? '', module), enabled: from !== null, refetchInterval: false });
  const push = useMutation({
    mutationFn: (rule: Record<string, unknown>) => call(wanjiRoutes.push, { body: { module, rule, devices: picked } }, { silent: true }),
  });
  const rule = parseRuleJson(json);
  return (
    <Stack gap="sm">
      <Group grow align="flex-end">
        <Select label={wanjiText('module')} data={moduleOptions} value={module} onChange={(m) => m && (setModule(m as ModuleKey), setFrom(null))} allowDeselect={false} data-testid="wanji-push-module" />
        <Select label={wanjiText('copyFrom')} data={devices.map((d) => ({ value: d.key, label: d.name }))} value={from} onChange={setFrom} clearable data-testid="wanji-push-from" />
        <Select
          label={wanjiText('copyRule')}
          data={(source.data?.list ?? []).map((r) => ({ value: r.key, label: r.name }))}
          value={null}
          onChange={(k) => {
            const r = source.data?.list.find((x) => x.key === k);
            if (r) setJson(ruleJson(r.rule));
          }}
          disabled={!source.data}
          placeholder={source.isFetching ? wanjiText('loading') : undefined}
          data-testid="wanji-push-rule"
        />
      </Group>
      {source.isError && <Alert color="red">{failure(source.error)}</Alert>}
      <Textarea
        label={wanjiText('ruleJson')}
        description={wanjiText('ruleJsonHint')}
        value={json}
        onChange={(e) => setJson(e.currentTarget.value)}
        autosize
        minRows={6}
        maxRows={18}
        styles={mono}
        error={rule ? undefined : wanjiText('badJson')}
        data-testid="wanji-push-json"
      />
      <DevicePicker devices={devices} value={picked} onChange={setPicked} />
      <Group>
        <Button onClick={() => rule && push.mutate(rule)} disabled={!rule || picked.length === 0} loading={push.isPending} data-testid="wanji-push-run">
          {wanjiText('pushRun', { n: picked.length })}
        </Button>
      </Group>
      {push.isError && (
        <Alert color="red" data-testid="wanji-push-error">
          {failure(push.error)}
        </Alert>
      )}
      {push.data && <ResultsTable results={push.data.results} testId="wanji-push-results" />}
    </Stack>
  );
}

const COMPARE_COLOR: Record<WanjiCompareRow['state'], string> = { same: 'green', different: 'orange', onlyA: 'blue', onlyB: 'grape' };

function ComparePanel({ devices }: { devices: Device[] }) {
  const [module, setModule] = useState<ModuleKey>('wol');
  const [a, setA] = useState<string | null>(null);
  const [b, setB] = useState<string | null>(null);
  const compare = useMutation({
    mutationFn: () => call(wanjiRoutes.compare, { query: { module, a: a!, b: b! } }, { silent: true }),
  });
  const options = devices.map((d) => ({ value: d.key, label: d.name }));
  const name = (k: string | null) => devices.find((d) => d.key === k)?.name ?? '';
  return (
    <Stack gap="sm">
      <Group grow align="flex-end">
        <Select label={wanjiText('module')} data={moduleOptions} value={module} onChange={(m) => m && setModule(m as ModuleKey)} allowDeselect={false} data-testid="wanji-compare-module" />
        <Select label={wanjiText('deviceA')} data={options} value={a} onChange={setA} data-testid="wanji-compare-a" />
        <Select label={wanjiText('deviceB')} data={options} value={b} onChange={setB} data-testid="wanji-compare-b" />
        <Button onClick={() => compare.mutate()} disabled={!a || !b || a === b} loading={compare.isPending} data-testid="wanji-compare-run">
          {wanjiText('compareRun')}
        </Button>
      </Group>
      {compare.isError && <Alert color="red">{failure(compare.error)}</Alert>}
      {compare.data &&
        (compare.data.rows.length === 0 ? (
          <Text c="dimmed">{wanjiText('compareEmpty')}</Text>
        ) : (
          <Table data-testid="wanji-compare-rows" striped>
            <TableHead titles={[wanjiText('colName'), wanjiText('colResult'), wanjiText('colFields')]} />
            <Table.Tbody>
              {compare.data.rows.map((r) => (
                <Table.Tr key={r.name} data-testid="wanji-compare-row" data-name={r.name} data-state={r.state}>
                  <Table.Td>{r.name}</Table.Td>
                  <Table.Td>
                    <Badge color={COMPARE_COLOR[r.state]} variant="light" tt="none">
                      {wanjiText(`compare.${r.state}`, { a: name(a), b: name(b) })}
                    </Badge>
                  </Table.Td>
                  <Table.Td fz="sm" ff="monospace">
                    {r.fields.join(', ')}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ))}
    </Stack>
  );
}

function VersionsPanel({ devices }: { devices: Device[] }) {
  const [picked, setPicked] = useState<string[]>([]);
  const check = useMutation({ mutationFn: () => call(wanjiRoutes.versions, { body: { devices: picked } }, { silent: true }) });
  return (
    <Stack gap="sm">
      <DevicePicker devices={devices} value={picked} onChange={setPicked} />
      <Group>
        <Button onClick={() => check.mutate()} loading={check.isPending} data-testid="wanji-versions-run">
          {picked.length ? wanjiText('versionsRun', { n: picked.length }) : wanjiText('versionsRunAll')}
        </Button>
      </Group>
      {check.isError && <Alert color="red">{failure(check.error)}</Alert>}
      {check.data && (
        <>
          <Text fz="sm" data-testid="wanji-versions-newest">
            {wanjiText('versionsNewest', { newest: check.data.newest, own: check.data.own })}
          </Text>
          <ResultsTable results={check.data.results} testId="wanji-versions-results" />
        </>
      )}
    </Stack>
  );
}
