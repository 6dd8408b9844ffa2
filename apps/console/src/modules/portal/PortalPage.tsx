/**
 * Login portal: its users (2FA, the web rules they may open, live sessions, last sign-in; switch,
 * log, edit, delete), the module settings, and under them the live sessions with their "End".
 */
import { Text } from '@mantine/core';
import type { portalRoutes } from '@lucky/contracts';
import { useQuery } from '@tanstack/react-query';
import { BadgeList, RuleNameCell } from '../../kit/rule-list/RuleCells';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { fmtTime } from '../safe/ui';
import { ruleNames } from './form';
import { portalText as t } from './i18n';
import { webRulesQuery } from './queries';
import { RuleForm } from './RuleForm';
import { portalRules } from './ruleModule';
import { SessionsCard } from './SessionsCard';
import { SettingsForm } from './SettingsForm';
import { TotpBadge } from './TotpField';

type Row = RuleViewOf<typeof portalRoutes>;

const columns: RuleColumn<Row>[] = [
  { head: t('colName'), td: { maw: 220 }, cell: (r) => <RuleNameCell name={r.name} note={r.note} testId={portalRules.testIds.rowName} /> },
  { head: t('colTotp'), cell: (r) => <TotpBadge totp={r.totp} testId="portal-row-totp" /> },
  { head: t('colRules'), td: { maw: 300 }, cell: (r) => <RulesCell keys={r.rules} /> },
  {
    head: t('colSessions'),
    cell: (r) => (
      <Text fz="sm" data-testid="portal-row-sessions" data-value={r.sessions}>
        {r.sessions}
      </Text>
    ),
  },
  {
    head: t('colLastLogin'),
    cell: (r) => (
      <Text fz="sm" c={r.lastLogin ? undefined : 'dimmed'} style={{ whiteSpace: 'nowrap' }} data-testid="portal-row-lastlogin" data-value={r.lastLogin}>
        {r.lastLogin ? fmtTime(r.lastLogin) : t('never')}
      </Text>
    ),
  },
];

export function PortalPage() {
  return <RulePage rules={portalRules} columns={columns} Form={RuleForm} Settings={SettingsForm} below={(_rows, enabled) => enabled && <SessionsCard />} />;
}

/** The web rules by name; none listed reads as every rule that requires login. */
function RulesCell({ keys }: { keys: string[] }) {
  const rules = useQuery(webRulesQuery()).data?.list;
  return <BadgeList entries={ruleNames(keys, rules, t)} emptyText={t('rulesAll')} color="teal" testId="portal-row-rules" attr="data-rules" />;
}
