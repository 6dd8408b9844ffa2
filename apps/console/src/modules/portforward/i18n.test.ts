import { describe, expect, it } from 'vitest';
import { pfTextIn } from './i18n';

describe('port forwarding texts', () => {
  it('names every engine state in both languages', () => {
    for (const l of ['zh_CN', 'en_US'] as const) for (const s of ['running', 'stopped', 'error', 'disabled', 'waiting'] as const) expect(pfTextIn(l)(`state.${s}`)).toBeTruthy();
  });
});
