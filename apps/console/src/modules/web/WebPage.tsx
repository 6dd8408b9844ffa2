/** Web services: rule list (listen, engine status, live figures, switch), add/edit, logs, batch domain replace, settings. */
import { Anchor, Badge, Group, Text, Tooltip } from '@mantine/core';
import type { webRoutes } from '@lucky/contracts';
import { FirstEntries, RuleNameCell, RuleStatusCell } from '../../kit/rule-list/RuleCells';
import { RuleFigures } from '../../kit/rule-list/RuleFigures';
import type { RuleViewOf } from '../../kit/rule-list/ruleModule';
import { RulePage, type RuleColumn } from '../../kit/rule-list/RulePage';
import { RuleLogLines, type LogTab } from '../../kit/rule-log/RuleLogDialog';
import { AccessLog } from './AccessLog';
import { webText } from './i18n';
import { autoCertListNames, codeColor, codeList, figuresText, listenText, openUrl, ruleDomains } from './listing';
import { ReplaceDomain } from './ReplaceDomain';
import { RuleForm } from './RuleForm';
import { webRules } from './ruleModule';
import { SettingsForm } from './SettingsForm';

type Rule = RuleViewOf<typeof webRoutes>;

const columns: RuleColumn<Rule>[] = [
  { head: webText('colName'), td: { maw: 260 }, cell: (r) => <NameCell r={r} /> },
  { head: webText('colListen'), cell: (r) => <ListenCell r={r} /> },
  { head: webText('colStatus'), td: { maw: 260 }, cell: (r) => <RuleStatusCell status={r.status} text={webText} testIds={webRules.testIds} /> },
  { head: webText('colFigures'), td: { 'data-testid': 'web-figures' }, cell: (r) => <FiguresCell r={r} /> },
];

const logTabs: LogTab<Rule>[] = [
  { value: 'access', label: webText('tabAccessLog'), render: (r) => <AccessLog ruleKey={r.key} /> },
  { value: 'log', label: webText('tabServiceLog'), render: (r) => <RuleLogLines rules={webRules} ruleKey={r.key} /> },
];

export function WebPage() {
  return <RulePage rules={webRules} columns={columns} tools={(rules, enabled) => <ReplaceDomain rules={rules} enabled={enabled} />} logTabs={logTabs} Form={RuleForm} Settings={SettingsForm} />;
}

function NameCell({ r }: { r: Rule }) {
  const domains = ruleDomains(r);
  return (
    <RuleNameCell name={r.name} note={r.note} testId={webRules.testIds.rowName}>
      <Text fz="xs" c="dimmed">
        {webText('subRulesCount', { n: r.subRules.length })} · {webText(`type.${r.defaultService.type}`)}
      </Text>
      {domains.length > 0 && <FirstEntries entries={domains} text={webText} mono testId="web-row-domains" />}
    </RuleNameCell>
  );
}

function ListenCell({ r }: { r: Rule }) {
  // Every address means the address this page came from.
  const pageHost = typeof window !== 'undefined' ? window.location.hostname : 'localhost';
  return (
    <>
      <Group gap={4} wrap="nowrap">
        <Badge size="xs" variant="outline" tt="none">
          {r.network}
        </Badge>
        <Badge size="xs" variant="outline" color={r.protocol === 'https' ? 'teal' : 'gray'} tt="none">
          {r.protocol}
        </Badge>
      </Group>
      <Anchor
        href={openUrl(r, pageHost)}
        target="_blank"
        rel="noreferrer"
        fz="sm"
        style={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }}
        title={webText('open')}
        data-testid="web-row-listen"
      >
        {listenText(r)}
      </Anchor>
      <AutoCert r={r} />
      {r.firewallAllow && r.firewall && (
        <Text fz="xs" c="dimmed" maw={220} data-testid="web-row-firewall">
          {webText('firewallNote', { note: r.firewall })}
        </Text>
      )}
    </>
  );
}

/** An automatic certificate: "Automatic certificate: a.example.com, b.example.com and 1 more", every name on hover. */
function AutoCert({ r }: { r: Rule }) {
  const names = autoCertListNames(r);
  if (!names) return null;
  const shown = names.length ? names.slice(0, 2).join(', ') + (names.length > 2 ? ` ${webText('domainsMore', { n: names.length - 2 })}` : '') : '—';
  return (
    <Text fz="xs" c="dimmed" maw={260} truncate="end" title={names.join('\n')} data-testid="web-row-cert">
      {webText('certAuto', { names: shown })}
    </Text>
  );
}

function FiguresCell({ r }: { r: Rule }) {
  const f = figuresText(r.figures);
  const codes = codeList(r.figures.codes);
  return (
    <RuleFigures
      quiet={r.figures.requests === 0 && r.figures.connections === 0}
      quietText={webText('noRequests')}
      lines={[
        [
          { text: webText('requests', { n: f.requests }), testId: 'web-fig-requests', value: r.figures.requests },
          { text: webText('connections', { n: f.connections }), testId: 'web-fig-connections' },
        ],
        [
          { text: `↓ ${webText('bytesIn', { v: f.bytesIn })}`, testId: 'web-fig-in' },
          { text: `↑ ${webText('bytesOut', { v: f.bytesOut })}`, testId: 'web-fig-out' },
        ],
        // Which path answered: the native data plane itself, or the rule's Node server behind it.
        ...(r.figures.engine
          ? [
              [
                { text: webText('engineNative', { n: r.figures.engine.native.toLocaleString('en-US') }), testId: 'web-fig-native' },
                { text: webText('engineNode', { n: r.figures.engine.node.toLocaleString('en-US') }), testId: 'web-fig-node' },
              ],
            ]
          : []),
      ]}
    >
      {codes.length > 0 && (
        <Group gap={4}>
          {codes.slice(0, 6).map(([code, n]) => (
            <Tooltip key={code} label={code === '0' ? webText('codeClosed') : code}>
              <Badge size="xs" variant="light" color={codeColor(code)} tt="none" data-testid="web-fig-code" data-code={code}>
                {code === '0' ? '—' : code}: {n}
              </Badge>
            </Tooltip>
          ))}
        </Group>
      )}
    </RuleFigures>
  );
}
