/** FTP server: servers (listen address, passive range, FTPS, mounts, the address to copy, live figures, status, switch, log, edit, delete), add/edit, settings. */
import { Text } from '@mantine/core';
import type { ftpserverRoutes } from '@lucky/contracts';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage } from '../../kit/rule-list/RulePage';
import { serverColumns } from '../../kit/storage/serverColumns';
import { ftpText } from './i18n';
import { RuleForm } from './RuleForm';
import { ftpRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Row = RuleViewOf<typeof ftpserverRoutes>;

const columns = serverColumns<Row>({
  text: ftpText,
  testIds: ftpRules.testIds,
  testPrefix: 'ftp',
  scheme: (r) => ({ label: r.tls === 'off' ? 'FTP' : r.tls === 'explicit' ? 'FTPES' : 'FTPS', secure: r.tls !== 'off' }),
  listenDetail: (r) => (
    <Text fz="xs" c="dimmed" data-testid="ftp-row-passive">
      {ftpText('passiveRange', { min: r.pasvMin, max: r.pasvMax })}
    </Text>
  ),
  activity: (r) => ({
    figure: { text: ftpText('sessions', { n: r.figures.sessions }), testId: 'ftp-fig-sessions', value: r.figures.sessions },
    quiet: r.figures.commands === 0,
  }),
});

export function FtpserverPage() {
  return <RulePage rules={ftpRules} columns={columns} Form={RuleForm} Settings={SettingsForm} />;
}
