import { describe, expect, it } from 'vitest';
import { ZBaseConfigFile } from '@lucky/contracts';
import { parityProblems } from '../../i18n/parity';
import { en_US, fieldLabel, zh_CN } from './system.i18n';

describe('system panel texts', () => {
  it('zh_CN and en_US match (keys, non-empty, placeholders)', () => {
    expect(parityProblems(zh_CN, en_US)).toEqual([]);
  });

  it('labels every field of lucky_base.lkcf a restore summary may name', () => {
    for (const k of Object.keys(ZBaseConfigFile.shape)) expect(`field.${k}` in zh_CN, k).toBe(true);
    expect(fieldLabel('AdminWebListenPort')).toBe('监听端口');
    expect(fieldLabel('SomethingNew')).toBe('SomethingNew');
  });
});
