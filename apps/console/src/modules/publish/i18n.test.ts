import { PUBLISH_CHECKS } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { publishTextIn } from './i18n';

describe('Publish texts', () => {
  it('name the page, every check and its states in both languages', () => {
    expect(publishTextIn('zh_CN')('title')).toBe('发布服务');
    expect(publishTextIn('en_US')('title')).toBe('Publish');
    for (const l of ['zh_CN', 'en_US'] as const) {
      const text = publishTextIn(l);
      for (const id of PUBLISH_CHECKS) expect(text(`check.${id}`)).toBeTruthy();
      for (const s of ['ok', 'failed', 'pending'] as const) expect(text(`checkState.${s}`)).toBeTruthy();
      // The kit's texts fill what the module does not word itself.
      expect(text('copied')).toBeTruthy();
    }
    expect(publishTextIn('en_US')('namesHint')).toMatch(/^One a line, under the zone of the DDNS task/);
  });
});
