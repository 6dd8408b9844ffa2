/**
 * The fleet: every managed device at a glance (online or not and since when, version, uptime, CPU
 * and memory with their last samples, modules, rules and those in error, failing DDNS tasks,
 * certificates near expiry), polled by the daemon in the background; the device page behind each
 * name; "refresh now" and the fleet actions in the title bar.
 */
import { Badge, Button, Group, Text } from '@mantine/core';
import { wanjiRoutes } from '@lucky/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { RuleNameCell } from '../../kit/rule-list/RuleCells';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { HealthCell, LoadCell, ModulesCell, OnlineCell, VersionCell, type Device } from './cells';
import { FleetDialog } from './FleetDialog';
import { wanjiText } from './i18n';
import { RuleForm } from './RuleForm';
import { wanjiRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

const columns: RuleColumn<Device>[] = [
  {
    head: wanjiText('colName'),
    cell: (d) => (
      <RuleNameCell name={d.name} note={d.note} testId={wanjiRules.testIds.rowName}>
        <Text fz="xs" c="dimmed" ff="monospace" truncate="end" maw={240} title={d.url}>
          {d.url}
        </Text>
        {(d.group || d.tags.length > 0) && (
          <Group gap={4} mt={2}>
            {d.group && (
              <Badge size="xs" variant="outline" tt="none">
                {d.group}
              </Badge>
            )}
            {d.tags.map((t) => (
              <Badge key={t} size="xs" variant="light" color="gray" tt="none">
                {t}
              </Badge>
            ))}
          </Group>
        )}
      </RuleNameCell>
    ),
  },
  { head: wanjiText('colOnline'), cell: (d) => <OnlineCell d={d} /> },
  { head: wanjiText('colVersion'), cell: (d) => <VersionCell d={d} /> },
  { head: wanjiText('colLoad'), cell: (d) => <LoadCell d={d} /> },
  { head: wanjiText('colModules'), cell: (d) => <ModulesCell d={d} /> },
  { head: wanjiText('colHealth'), cell: (d) => <HealthCell d={d} /> },
];

export function WanjiPage() {
  const [fleet, setFleet] = useState(false);
  return (
    <>
      <RulePage
        rules={wanjiRules}
        columns={columns}
        rowProps={(d) => ({ 'data-name': d.name, 'data-online': d.enable ? d.state.online : 'disabled' })}
        actions={(d) => (
          <Button size="xs" variant="light" component="a" href={`#/wanjiadmin/${d.key}`} data-testid="wanji-open">
            {wanjiText('open')}
          </Button>
        )}
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

