import { describe, expect, it } from 'vitest';
import { newConsoleAddress } from './SettingsPage';

describe('new console address after a listen change', () => {
  const loc = { protocol: 'http:', hostname: '192.168.1.2' };
  it('keeps the browser host when listening on every address', () => {
    expect(newConsoleAddress(loc, '', 16602)).toBe('http://192.168.1.2:16602/');
    expect(newConsoleAddress(loc, '::', 8080)).toBe('http://192.168.1.2:8080/');
    expect(newConsoleAddress(loc, '0.0.0.0', 8080)).toBe('http://192.168.1.2:8080/');
  });
  it('uses a specific listen address, brackets for IPv6', () => {
    expect(newConsoleAddress(loc, '10.0.0.1', 1)).toBe('http://10.0.0.1:1/');
    expect(newConsoleAddress({ protocol: 'https:', hostname: 'x' }, 'fd00::1', 443)).toBe('https://[fd00::1]:443/');
  });
});

