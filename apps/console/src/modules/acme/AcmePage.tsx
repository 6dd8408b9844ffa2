/** Certificates: rules from ACME, pasted PEM or files; names, expiry, next renewal, order now, switch, edit, log, delete. */
import { Button, Group } from '@mantine/core';
import type { acmeRoutes } from '@lucky/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '../../api';
import { pushNotice } from '../../api/notices';
import { RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { ExportDialog } from './ExportDialog';
import { acmeText } from './i18n';
import { RuleForm } from './RuleForm';
import { acmeRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Row = RuleViewOf<typeof acmeRoutes>;

const when = (ms: number | null | undefined) => (ms ? new Date(ms).toLocaleString() : acmeText('never'));

const columns: RuleColumn<Row>[] = [
  { head: acmeText('colName'), cell: (d) => <RuleNameCell name={d.name} note={d.note} testId={acmeRules.testIds.rowName} /> },
  {
    head: acmeText('colDomains'),
    td: { style: { fontFamily: 'monospace', fontSize: 12 } },
    cell: (d) => (d.certificate?.names ?? d.domains).map((n) => <div key={n}>{n}</div>),
  },
  { head: acmeText('source'), td: { fz: 'sm' }, cell: (d) => acmeText(`source.${d.source}`) },
  { head: acmeText('colExpires'), td: { fz: 'sm', 'data-testid': 'acme-expires' }, cell: (d) => when(d.certificate?.notAfter) },
  { head: acmeText('renewAt'), td: { fz: 'sm' }, cell: (d) => when(d.renewAt) },
  { head: acmeText('status'), cell: (d) => <RuleStatusCell status={d.status} text={acmeText} testIds={acmeRules.testIds} /> },
];

export function AcmePage() {
  return <RulePage rules={acmeRules} columns={columns} rowProps={(d) => ({ 'data-name': d.name })} actions={(d) => <RowActions rule={d} />} Form={RuleForm} Settings={SettingsForm} />;
}

function RowActions({ rule }: { rule: Row }) {
  const [exporting, setExporting] = useState(false);
  return (
    <Group gap={6} wrap="nowrap">
      <RenewButton rule={rule} />
      <Button size="xs" variant="light" onClick={() => setExporting(true)} disabled={!rule.certificate} data-testid="acme-export">
        {acmeText('export')}
      </Button>
      {exporting && <ExportDialog rule={rule} onClose={() => setExporting(false)} />}
    </Group>
  );
}

/** Orders (or reads again) now; the daemon answers once the order is done. */
function RenewButton({ rule }: { rule: Row }) {
  const queryClient = useQueryClient();
  const renew = useMutation({
    mutationFn: () => call(acmeRules.routes.renew, { params: { key: rule.key } }),
    onSuccess: (r) => pushNotice(r.msg, 'green'),
    onSettled: async () => queryClient.invalidateQueries({ queryKey: acmeRules.queries.keys.all }),
  });
  return (
    <Button size="xs" onClick={() => renew.mutate()} loading={renew.isPending} disabled={!rule.enable} data-testid="acme-renew">
      {acmeText('renew')}
    </Button>
  );
}
