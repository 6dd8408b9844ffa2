import { describe, expect, it } from 'vitest';
import { ZBaseConfigFile } from '@lucky/contracts';
import { fieldLabel } from './system.i18n';
import { zh_CN } from './system.i18n.zh_CN';

describe('system panel texts', () => {
  it('labels every field of lucky_base.lkcf a restore summary may name', () => {
    for (const k of Object.keys(ZBaseConfigFile.shape)) expect(`field.${k}` in zh_CN, k).toBe(true);
    expect(fieldLabel('AdminWebListenPort')).toBe('监听端口');
    expect(fieldLabel('SomethingNew')).toBe('SomethingNew');
  });
});
