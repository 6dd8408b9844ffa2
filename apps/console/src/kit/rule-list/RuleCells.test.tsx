/** The state cell every rule list shows: a rule waiting (a certificate being ordered) reads as pending, not as an error. */
import type { RuleStatus } from '@lucky/contracts';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders, testQueryClient, withDomShims } from '../../testing/dom';
import type { TextTables } from '../../i18n';
import { bindRuleTexts, type RuleTextId } from '../texts';
import { RuleStatusCell } from './RuleCells';
import { ruleTestIds } from './ruleModule';

withDomShims();

const ids = ruleTestIds('cell');
const show = (status: RuleStatus, inLang: 'zh_CN' | 'en_US') =>
  renderWithProviders(<RuleStatusCell status={status} text={bindRuleTexts({ zh_CN: {}, en_US: {} } as TextTables<RuleTextId>, inLang)} testIds={ids} />, testQueryClient());

describe('the rule state cell', () => {
  it('shows waiting in either language, its message not in the error colour', () => {
    const message = 'waiting for certificate site: not in the store yet';
    show({ state: 'waiting', message, since: 0 }, 'en_US');
    const badge = screen.getByTestId(ids.status);
    expect(badge.dataset.state).toBe('waiting');
    expect(badge.textContent).toBe('Waiting');
    const line = screen.getByTestId(ids.statusMessage);
    expect(line.textContent).toBe(message);
    expect(line.getAttribute('style') ?? '').not.toContain('red');
  });

  it('an error keeps the error colour, for comparison', () => {
    show({ state: 'error', message: 'port in use', since: 0 }, 'zh_CN');
    expect(screen.getByTestId(ids.status).textContent).toBe('出错');
    expect(screen.getByTestId(ids.statusMessage).getAttribute('style') ?? '').toContain('red');
  });

  it('reads 等待中 in Chinese', () => {
    show({ state: 'waiting', message: '', since: 0 }, 'zh_CN');
    expect(screen.getByTestId(ids.status).textContent).toBe('等待中');
  });
});
