import { describe, expect, it } from 'vitest';
import { formToDevice } from '../wol/WolPage';
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

describe('wake-on-LAN form', () => {
  it('turns the form into the contract input: one MAC per line, numbers kept as NaN when empty', () => {
    const d = formToDevice({ name: ' NAS ', enable: true, macs: '<b>00:11:22:33:44:55</b>\n\n 66:77:88:99:aa:bb ', broadcast: ' 192.168.1.255', port: 9, secureOn: '', repeat: '', note: 'n' });
    expect(d).toMatchObject({ name: 'NAS', macs: ['00:11:22:33:44:55', '66:77:88:99:aa:bb'], broadcast: '192.168.1.255', port: 9 });
    expect(Number.isNaN(d.repeat)).toBe(true);
  });
});
