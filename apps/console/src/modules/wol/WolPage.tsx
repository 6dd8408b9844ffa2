/** Wake-on-LAN: devices (MACs, broadcast, port, SecureOn, repeat), wake now, switch, edit, log, delete. */
import { Button } from '@mantine/core';
import type { wolRoutes } from '@lucky/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { wolText } from './i18n';
import { RuleForm } from './RuleForm';
import { wolRules } from './ruleModule';

type Row = RuleViewOf<typeof wolRoutes>;

const columns: RuleColumn<Row>[] = [
  { head: wolText('colName'), cell: (d) => <RuleNameCell name={d.name} note={d.note} testId={wolRules.testIds.rowName} /> },
  { head: wolText('macs'), td: { style: { fontFamily: 'monospace', fontSize: 12 } }, cell: (d) => d.macs.map((m) => <div key={m}>{m}</div>) },
  { head: wolText('broadcast'), td: { fz: 'sm' }, cell: (d) => `${d.broadcast}:${d.port}` },
  { head: wolText('status'), cell: (d) => <RuleStatusCell status={d.status} text={wolText} testIds={wolRules.testIds} /> },
  { head: wolText('lastWake'), td: { fz: 'sm', 'data-testid': 'wol-lastwake' }, cell: (d) => (d.lastWake ? new Date(d.lastWake).toLocaleString() : wolText('never')) },
];

export function WolPage() {
  return <RulePage rules={wolRules} columns={columns} actions={(d) => <WakeButton device={d} />} Form={RuleForm} />;
}

function WakeButton({ device }: { device: Row }) {
  const queryClient = useQueryClient();
  const wake = useMutation({
    mutationFn: () => call(wolRules.routes.wake, { params: { key: device.key } }),
    onSuccess: async (r) => {
      pushNotice(r.msg, 'green');
      await queryClient.invalidateQueries({ queryKey: wolRules.queries.keys.all });
    },
  });
  return (
    <Button size="xs" onClick={() => wake.mutate()} loading={wake.isPending} data-testid="wol-wake">
      {wolText('wake')}
    </Button>
  );
}
