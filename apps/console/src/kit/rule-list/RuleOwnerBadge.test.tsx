/** A rule another module made (its owner) is marked in every module's list: "Publish: Home Assistant", in either language. */
import { ZWolDevice, type RuleOwner } from '@lucky/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { listed, renderWithProviders, stubFetch, testQueryClient, withDomShims } from '../../testing/dom';
import type { TextTables } from '../../i18n';
import { wolRules } from '../../modules/wol/ruleModule';
import { bindRuleTexts, type RuleTextId } from '../texts';
import { RuleOwnerBadge } from './RuleCells';
import { RulePage } from './RulePage';

withDomShims();

const HA: RuleOwner = { module: 'publish', key: 'svc1', name: 'Home Assistant' };
const kitOnly = (inLang: 'zh_CN' | 'en_US') => bindRuleTexts({ zh_CN: {}, en_US: {} } as TextTables<RuleTextId>, inLang);
const badge = (owner: RuleOwner | null, inLang: 'zh_CN' | 'en_US') =>
  renderWithProviders(<RuleOwnerBadge owner={owner} text={kitOnly(inLang)} testId="owner" inLang={inLang} />, testQueryClient());

describe('the owner badge', () => {
  it('names the owning module and its object, in English', () => {
    badge(HA, 'en_US');
    const b = screen.getByTestId('owner');
    expect(b.textContent).toBe('Publish: Home Assistant');
    expect(b.getAttribute('title')).toBe('Made by Publish for "Home Assistant"');
    expect(b.dataset.owner).toBe('publish');
  });

  it('and in Chinese', () => {
    badge(HA, 'zh_CN');
    expect(screen.getByTestId('owner').textContent).toBe('发布：Home Assistant');
  });

  it('shows a module this console has no name for by its key', () => {
    badge({ module: 'later', key: 'x', name: 'Thing' }, 'en_US');
    expect(screen.getByTestId('owner').textContent).toBe('later: Thing');
  });

  it('is not there for a rule the user made in its own module', () => {
    badge(null, 'en_US');
    expect(screen.queryByTestId('owner')).toBeNull();
  });
});

describe('the rule list', () => {
  it('marks only the rule another module made, under its name', () => {
    stubFetch({ ret: 0, Modules: ['wol'] });
    const qc = testQueryClient();
    const device = (key: string, name: string, owner: RuleOwner | null) => ({ ...listed(ZWolDevice.parse({ name, macs: ['02:00:00:aa:bb:cc'] }), { lastWake: null }), key, owner });
    qc.setQueryData(wolRules.queries.list().queryKey, { ret: 0 as const, list: [device('k1', 'mine', null), device('k2', 'ha', HA)] });
    renderWithProviders(<RulePage rules={wolRules} columns={[{ head: 'Name', cell: (r) => r.name }]} Form={() => null} />, qc);
    const rows = screen.getAllByTestId(wolRules.testIds.row);
    expect(rows.map((r) => r.dataset.name)).toEqual(['mine', 'ha']);
    expect(within(rows[0]!).queryByTestId(wolRules.testIds.owner)).toBeNull();
    expect(within(rows[1]!).getByTestId(wolRules.testIds.owner).dataset.owner).toBe('publish');
  });
});
