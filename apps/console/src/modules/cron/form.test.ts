import { ZCronTask } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { checkTask, emptyAction, emptyForm, formToTask, moveAction, toForm } from './form';
import { parityProblems } from '../../i18n/parity';
import { en_US } from './i18n.en_US';
import { zh_CN } from './i18n.zh_CN';

describe('scheduled task form', () => {
  it('turns the form into the contract input and back', () => {
    const f = { ...emptyForm(), name: ' nightly ', expr: '0 30 2 * * *', timezone: 'Asia/Shanghai', actions: [{ ...emptyAction('command'), line: 'echo hi', env: 'A=1\n\nB=2', timeout: '5' }, { ...emptyAction('switch'), module: 'stun' as const, target: 'k1', enable: false }] };
    const t = formToTask(f);
    expect(t).toMatchObject({ name: 'nightly', schedule: { kind: 'cron', expr: '0 30 2 * * *' }, timezone: 'Asia/Shanghai', actions: [{ type: 'command', line: 'echo hi', env: ['A=1', 'B=2'], timeout: 5 }, { type: 'switch', module: 'stun', rule: 'k1', enable: false }] });
    const parsed = ZCronTask.parse(t);
    const back = toForm(parsed);
    expect(formToTask(back)).toEqual(formToTask({ ...f, actions: back.actions }));
  });

  it('names the first problem with the daemon\'s own line, in the page language', () => {
    const p = checkTask({ ...emptyForm(), name: 'x', timezone: 'Mars/Olympus', actions: [{ ...emptyAction('command'), line: 'true' }] }, 'en_US');
    expect(p[0]!.message).toBe('Invalid timezone: unknown time zone');
    expect(checkTask({ ...emptyForm(), name: 'x', actions: [{ ...emptyAction('command'), line: 'true' }] })).toEqual([]);
    expect(checkTask({ ...emptyForm(), name: 'x', actions: [{ ...emptyAction('command'), line: 'true', timeout: '' }] }, 'en_US')[0]!.message).toMatch(/actions\[0\]\.timeout/);
  });

  it('reorders actions', () => {
    const [a, b, c] = [emptyAction(), emptyAction('url'), emptyAction('wol')];
    expect(moveAction([a, b, c], 2, -1).map((x) => x.type)).toEqual(['command', 'wol', 'url']);
    expect(moveAction([a, b, c], 0, -1)).toEqual([a, b, c]);
  });

  it('has both languages with the same keys and placeholders', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });
});
