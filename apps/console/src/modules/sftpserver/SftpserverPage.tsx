/**
 * SFTP server: servers (listen address, the logins they take, mounts, the address to copy, live
 * figures, status, switch, log, edit, delete), add/edit, settings, and under them the host keys'
 * fingerprints to check on a client's first connection.
 */
import { Text } from '@mantine/core';
import type { sftpserverRoutes } from '@lucky/contracts';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage } from '../../kit/rule-list/RulePage';
import { serverColumns } from '../../kit/storage/serverColumns';
import { HostKeysCard } from './HostKeysCard';
import { sftpText } from './i18n';
import { RuleForm } from './RuleForm';
import { sftpRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Row = RuleViewOf<typeof sftpserverRoutes>;

/** The logins a rule takes, in the reader's words: "password · public key". */
export const loginsText = (r: Pick<Row, 'passwordLogin' | 'keyLogin'>, text = sftpText) =>
  [r.passwordLogin && text('loginsPassword'), r.keyLogin && text('loginsKey')].filter(Boolean).join(' · ');

const columns = serverColumns<Row>({
  text: sftpText,
  testIds: sftpRules.testIds,
  testPrefix: 'sftp',
  scheme: () => ({ label: 'SFTP', secure: true }),
  listenDetail: (r) => (
    <Text fz="xs" c="dimmed" data-testid="sftp-row-logins">
      {loginsText(r)}
    </Text>
  ),
  activity: (r) => ({
    figure: { text: sftpText('sessions', { n: r.figures.sessions }), testId: 'sftp-fig-sessions', value: r.figures.sessions },
    more: [
      { text: sftpText('requests', { n: r.figures.requests }), testId: 'sftp-fig-requests', value: r.figures.requests },
      { text: sftpText('uploads', { n: r.figures.uploads }), testId: 'sftp-fig-uploads', value: r.figures.uploads },
      { text: sftpText('downloads', { n: r.figures.downloads }), testId: 'sftp-fig-downloads', value: r.figures.downloads },
    ],
    quiet: r.figures.requests === 0 && r.figures.sessions === 0,
  }),
});

export function SftpserverPage() {
  return <RulePage rules={sftpRules} columns={columns} Form={RuleForm} Settings={SettingsForm} below={(_rows, enabled) => enabled && <HostKeysCard />} />;
}
