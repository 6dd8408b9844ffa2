/** WebDAV: servers (listen address, HTTP or HTTPS, prefix, mounts, the mount URL to copy, live figures, status, switch, log, edit, delete), add/edit, settings. */
import { Text } from '@mantine/core';
import type { webdavRoutes } from '@lucky/contracts';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage } from '../../kit/rule-list/RulePage';
import { serverColumns } from '../../kit/storage/serverColumns';
import { webdavText } from './i18n';
import { RuleForm } from './RuleForm';
import { webdavRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Row = RuleViewOf<typeof webdavRoutes>;

const columns = serverColumns<Row>({
  text: webdavText,
  testIds: webdavRules.testIds,
  testPrefix: 'webdav',
  scheme: (r) => ({ label: r.tls ? 'HTTPS' : 'HTTP', secure: r.tls }),
  listenDetail: (r) => (
    <Text fz="xs" c="dimmed" style={{ fontFamily: 'monospace' }} data-testid="webdav-row-prefix">
      {r.prefix}
    </Text>
  ),
  activity: (r) => ({
    figure: { text: webdavText('requests', { n: r.figures.requests }), testId: 'webdav-fig-requests', value: r.figures.requests },
    quiet: r.figures.requests === 0,
  }),
});

export function WebdavPage() {
  return <RulePage rules={webdavRules} columns={columns} Form={RuleForm} Settings={SettingsForm} />;
}
