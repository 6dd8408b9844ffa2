import { describe, expect, it } from 'vitest';
import { checkDevice, emptyForm, formToDevice, scheduledTask, scheduleExpr } from './form';

describe('wake-on-LAN form', () => {
  it('turns the form into the contract input: one MAC per line, numbers kept as NaN when empty', () => {
    const d = formToDevice({ name: ' NAS ', enable: true, macs: '<b>00:11:22:33:44:55</b>\n\n 66:77:88:99:aa:bb ', broadcast: ' 192.168.1.255', port: 9, secureOn: '', repeat: '', interface: '', targets: '10.0.0.255\n', checkHost: '', checkPort: 0, shutdownKind: 'command', shutdownCommand: ' ssh root@nas poweroff ', shutdownUrl: '', shutdownMethod: 'GET', shutdownBody: '', shutdownTimeout: '', note: 'n' });
    expect(d).toMatchObject({ name: 'NAS', macs: ['00:11:22:33:44:55', '66:77:88:99:aa:bb'], broadcast: '192.168.1.255', port: 9, targets: ['10.0.0.255'] });
    expect(Number.isNaN(d.repeat)).toBe(true);
    expect(d.shutdown).toMatchObject({ kind: 'command', command: 'ssh root@nas poweroff' });
    expect(Number.isNaN(d.shutdown.timeout)).toBe(true);
  });

  it('refuses an empty shutdown command and a bad shutdown URL, naming the field', () => {
    const base = { ...emptyForm(), name: 'NAS', macs: '00:11:22:33:44:55' };
    expect(checkDevice({ ...base, shutdownKind: 'command', shutdownCommand: ' ' }, 'en_US')[0]!.message).toMatch(/shutdown\.command/);
    expect(checkDevice({ ...base, shutdownKind: 'url', shutdownUrl: 'nas/off' }, 'en_US')[0]!.message).toMatch(/shutdown\.url/);
    expect(checkDevice({ ...base, shutdownKind: 'url', shutdownUrl: 'http://nas/off', shutdownTimeout: 0 }, 'en_US')[0]!.message).toMatch(/shutdown\.timeout/);
    // The fields of a kind not chosen are not checked.
    expect(checkDevice({ ...base, shutdownKind: 'none', shutdownUrl: 'nas/off' })).toEqual([]);
  });

  it('turns a time of day and weekdays into a cron expression with seconds', () => {
    expect(scheduleExpr('07:30', [1, 2, 3, 4, 5])).toBe('0 30 7 * * 1-5');
    expect(scheduleExpr('7:05', [0, 1, 2, 3, 4, 5, 6])).toBe('0 5 7 * * *');
    expect(scheduleExpr('23:59', [6, 0])).toBe('0 59 23 * * 0,6');
    expect(scheduleExpr('22:00', [1, 3, 4, 5, 0])).toBe('0 0 22 * * 0,1,3-5');
    expect(scheduleExpr('22:00', [])).toBeNull();
    expect(scheduleExpr('24:00', [1])).toBeNull();
    expect(scheduleExpr('7.30', [1])).toBeNull();
    expect(scheduledTask({ key: 'k1', name: 'NAS' }, { op: 'shutdown', time: '23:00', days: [1, 2, 3, 4, 5] }, 'NAS off', 'Asia/Shanghai')).toMatchObject({
      name: 'NAS off',
      schedule: { kind: 'cron', expr: '0 0 23 * * 1-5' },
      timezone: 'Asia/Shanghai',
      actions: [{ type: 'wolShutdown', device: 'k1' }],
    });
    expect(scheduledTask({ key: 'k1', name: 'NAS' }, { op: 'wake', time: '07:00', days: [0] }, 'x', '')!.actions).toEqual([{ type: 'wol', device: 'k1', onFailure: 'stop' }]);
  });

  it("names a bad SecureOn password with the daemon's own line", () => {
    const p = checkDevice({ ...emptyForm(), name: 'NAS', macs: '00:11:22:33:44:55', secureOn: 'zz' }, 'en_US');
    expect(p).toHaveLength(1);
    expect(p[0]!.message).toContain('secureOn');
    expect(checkDevice({ ...emptyForm(), name: 'NAS', macs: '00:11:22:33:44:55' })).toEqual([]);
  });
});
