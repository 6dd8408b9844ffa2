import { describe, expect, it } from 'vitest';
import { checkDevice, emptyForm, formToDevice } from './form';

describe('wake-on-LAN form', () => {
  it('turns the form into the contract input: one MAC per line, numbers kept as NaN when empty', () => {
    const d = formToDevice({ name: ' NAS ', enable: true, macs: '<b>00:11:22:33:44:55</b>\n\n 66:77:88:99:aa:bb ', broadcast: ' 192.168.1.255', port: 9, secureOn: '', repeat: '', interface: '', targets: '10.0.0.255\n', checkHost: '', checkPort: 0, note: 'n' });
    expect(d).toMatchObject({ name: 'NAS', macs: ['00:11:22:33:44:55', '66:77:88:99:aa:bb'], broadcast: '192.168.1.255', port: 9, targets: ['10.0.0.255'] });
    expect(Number.isNaN(d.repeat)).toBe(true);
  });

  it("names a bad SecureOn password with the daemon's own line", () => {
    const p = checkDevice({ ...emptyForm(), name: 'NAS', macs: '00:11:22:33:44:55', secureOn: 'zz' }, 'en_US');
    expect(p).toHaveLength(1);
    expect(p[0]!.message).toContain('secureOn');
    expect(checkDevice({ ...emptyForm(), name: 'NAS', macs: '00:11:22:33:44:55' })).toEqual([]);
  });
});
