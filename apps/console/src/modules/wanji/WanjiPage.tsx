/**
 * The fleet: every managed device at a glance (online or not and since when, version, uptime, CPU
 * and memory with their last samples, modules, rules and those in error, failing DDNS tasks,
 * certificates near expiry), polled by the daemon in the background; the device page behind each
 * name; "refresh now" and the fleet actions in the title bar.
 */
import { Button, Group, Pagination, SegmentedControl, Select, Text, TextInput } from '@mantine/core';
import { wanjiRoutes } from '@lucky/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { HealthCell, LoadCell, ModulesCell, NameCell, OnlineCell, VersionCell, type Device } from './cells';
import { FleetDialog } from './FleetDialog';
import { allDevices, filterDevices, FLEET_PAGE_SIZES, type FleetFilter } from './form';
import { wanjiText } from './i18n';
import { RuleForm } from './RuleForm';
import { wanjiRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

const columns: RuleColumn<Device>[] = [
  { head: wanjiText('colName'), cell: (d) => <NameCell d={d} /> },
  { head: wanjiText('colOnline'), cell: (d) => <OnlineCell d={d} /> },
  { head: wanjiText('colVersion'), cell: (d) => <VersionCell d={d} /> },
  { head: wanjiText('colLoad'), cell: (d) => <LoadCell d={d} /> },
  { head: wanjiText('colModules'), cell: (d) => <ModulesCell d={d} /> },
  { head: wanjiText('colHealth'), cell: (d) => <HealthCell d={d} /> },
];

export function WanjiPage() {
  const [fleet, setFleet] = useState(false);
  const [filter, setFilter] = useState(allDevices);
  const set = (patch: Partial<FleetFilter>) => setFilter((f) => ({ ...f, page: 1, ...patch }));
  return (
    <>
      <RulePage
        rules={wanjiRules}
        columns={columns}
        above={(rows, enabled) => enabled && rows.length > 0 && <FilterBar rows={rows} filter={filter} set={set} />}
        shown={(rows) => filterDevices(rows, filter).rows}
        below={(rows) => <Pages rows={rows} filter={filter} setPage={(page) => setFilter((f) => ({ ...f, page }))} />}
        rowProps={(d) => ({ 'data-name': d.name, 'data-online': d.enable ? d.state.online : 'disabled' })}
        tools={(rows, enabled) => (
          <>
            <RefreshButton disabled={!enabled || rows.length === 0} />
            <Button variant="default" onClick={() => setFleet(true)} disabled={!enabled || rows.length === 0} data-testid="wanji-fleet-open">
              {wanjiText('fleetActions')}
            </Button>
          </>
        )}
        Form={RuleForm}
        Settings={SettingsForm}
      />
      <FleetDialog opened={fleet} onClose={() => setFleet(false)} />
    </>
  );
}

/** Search, group, online or not, rows a page: a fleet of hundreds shows a page at a time. */
function FilterBar({ rows, filter, set }: { rows: Device[]; filter: FleetFilter; set: (patch: Partial<FleetFilter>) => void }) {
  const groups = [...new Set(rows.map((d) => d.group).filter(Boolean))].sort();
  return (
    <Group gap="sm" align="flex-end" data-testid="wanji-filter">
      <TextInput placeholder={wanjiText('search')} value={filter.q} onChange={(e) => set({ q: e.currentTarget.value })} w={240} data-testid="wanji-search" />
      {groups.length > 0 && (
        <Select placeholder={wanjiText('allGroups')} data={groups} value={filter.group || null} onChange={(g) => set({ group: g ?? '' })} clearable w={180} data-testid="wanji-group-filter" />
      )}
      <SegmentedControl
        value={filter.online}
        onChange={(v) => set({ online: v as FleetFilter['online'] })}
        data={(['all', 'online', 'offline'] as const).map((v) => ({ value: v, label: wanjiText(`show.${v}`) }))}
        data-testid="wanji-online-filter"
      />
      <Select
        data={FLEET_PAGE_SIZES.map((n) => ({ value: String(n), label: n ? wanjiText('perPage', { n }) : wanjiText('perPageAll') }))}
        value={String(filter.size)}
        onChange={(v) => v !== null && set({ size: Number(v) })}
        allowDeselect={false}
        w={140}
        data-testid="wanji-page-size"
      />
    </Group>
  );
}

function Pages({ rows, filter, setPage }: { rows: Device[]; filter: FleetFilter; setPage: (page: number) => void }) {
  const f = filterDevices(rows, filter);
  if (rows.length === 0) return null;
  return (
    <Group justify="space-between">
      <Text fz="sm" c="dimmed" data-testid="wanji-shown">
        {wanjiText('shownOf', { shown: f.rows.length, total: f.total, all: rows.length })}
      </Text>
      {f.pages > 1 && <Pagination total={f.pages} value={f.page} onChange={setPage} size="sm" data-testid="wanji-pages" />}
    </Group>
  );
}

/** Polls every device now (the daemon answers within a few seconds, done or not), then shows the list again. */
function RefreshButton({ disabled }: { disabled: boolean }) {
  const queryClient = useQueryClient();
  const refresh = useMutation({
    mutationFn: () => call(wanjiRoutes.refresh, { query: { wait: 4 } }),
    onSuccess: async (r) => {
      pushNotice(wanjiText('refreshed', { online: r.online, devices: r.devices, ms: r.ms }), 'green');
      await queryClient.invalidateQueries({ queryKey: wanjiRules.queries.keys.rules });
    },
  });
  return (
    <Button variant="default" onClick={() => refresh.mutate()} loading={refresh.isPending} disabled={disabled} data-testid="wanji-refresh">
      {wanjiText('refresh')}
    </Button>
  );
}

