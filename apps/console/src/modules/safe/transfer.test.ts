import { describe, expect, it } from 'vitest';
import { fileNameFrom } from './transfer';

describe('fileNameFrom', () => {
  it('reads plain and RFC 5987 names, with a fallback', () => {
    expect(fileNameFrom('attachment; filename="lucky-backup-20261122.json"', 'x')).toBe('lucky-backup-20261122.json');
    expect(fileNameFrom('attachment; filename=plain.json', 'x')).toBe('plain.json');
    expect(fileNameFrom("attachment; filename*=UTF-8''%E5%A4%87%E4%BB%BD.json", 'x')).toBe('备份.json');
    expect(fileNameFrom(null, 'fallback.json')).toBe('fallback.json');
    expect(fileNameFrom('inline', 'fallback.json')).toBe('fallback.json');
  });
});
