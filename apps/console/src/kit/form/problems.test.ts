import { ZWolDevice } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { bindRuleTexts } from '../texts';
import { errorFor, schemaProblems, type ProblemWording } from './problems';

const wording = (lang: 'zh_CN' | 'en_US', shortInline = false): ProblemWording => ({
  lang,
  text: bindRuleTexts({ zh_CN: {}, en_US: {} }, lang),
  label: (path) => (path[0] === 'macs' ? (lang === 'zh_CN' ? 'MAC 地址' : 'MAC addresses') : String(path[0])),
  shortInline,
});

describe('schema problems', () => {
  it('names the field of each problem, the first of each field, with the line of a list entry', () => {
    const found = schemaProblems(ZWolDevice, { name: 'x', macs: ['00:11:22:33:44:55', 'nope'], port: 70000 }, wording('en_US', true));
    expect(found.map((p) => p.path)).toEqual(['macs.1', 'port']);
    expect(found[0]).toMatchObject({ field: 'macs', message: expect.stringMatching(/^MAC addresses, line 2: /), inline: expect.stringMatching(/^line 2: /) });
    expect(found[0]!.summary).toContain('macs');
  });

  it('says an empty required field is empty', () => {
    expect(schemaProblems(ZWolDevice, { name: 'x', macs: [] }, wording('zh_CN'))[0]!.message).toBe('MAC 地址不能为空');
    expect(schemaProblems(ZWolDevice, { name: 'x', macs: ['00:11:22:33:44:55'] }, wording('zh_CN'))).toEqual([]);
  });

  it('shows a problem on its field and on the fields above it', () => {
    const found = schemaProblems(ZWolDevice, { name: 'x', macs: ['bad'] }, wording('en_US'));
    expect(errorFor(found, 'macs')).toBe(found[0]!.message);
    expect(errorFor(found, 'mac')).toBeUndefined();
  });
});
