/** The device finder in jsdom: the picker, the progress while it runs, the results, and "add" with the fields filled. */
import type { WolScan, WolScanDevice } from '@lucky/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders, testQueryClient, withDomShims } from '../../testing/dom';
import { FindDevicesDialog } from './FindDevices';
import { deviceName, scanChoices, scannedDevice } from './scan';

withDomShims();

const IFS = [
  { name: 'lo', address: '127.0.0.1', broadcast: '127.255.255.255', subnet: '127.0.0.0/8', prefix: 8, internal: true },
  { name: 'wan0', address: '10.20.30.40', broadcast: '10.20.255.255', subnet: '10.20.0.0/16', prefix: 16, internal: false },
  { name: 'br-lan', address: '192.168.8.1', broadcast: '192.168.8.255', subnet: '192.168.8.0/24', prefix: 24, internal: false },
];
const found = (over: Partial<WolScanDevice>): WolScanDevice => ({ address: '192.168.8.12', mac: '00:11:32:5c:a0:12', vendor: 'Synology', dnsName: '', mdnsName: 'nas.local', known: null, ...over });
const scanOf = (over: Partial<WolScan>): WolScan => ({ interface: 'br-lan', address: '192.168.8.1', subnet: '192.168.8.0/24', broadcast: '192.168.8.255', state: 'running', phase: 'sweep', probed: 128, total: 253, startedAt: 1000, finishedAt: null, msg: '', devices: [], ...over });

/** A daemon in the fetch stub: the scan runs while asked twice, then is done. */
function stubDaemon() {
  const sent: Array<{ method: string; path: string; body: unknown }> = [];
  let asked = 0;
  let started = false;
  const done = scanOf({ state: 'done', phase: 'done', probed: 253, finishedAt: 4200, devices: [found({ address: '192.168.8.11', mac: 'b8:27:eb:5c:a0:11', vendor: 'Raspberry Pi', mdnsName: '', dnsName: 'pi.lan', known: 'k1' }), found({})] });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const path = new URL(String(url)).pathname;
      const method = init?.method ?? 'GET';
      sent.push({ method, path, body: init?.body ? JSON.parse(String(init.body)) : undefined });
      let answer: unknown = { ret: 3, msg: 'not here' };
      if (path === '/api/wol/interfaces') answer = { ret: 0, interfaces: IFS };
      else if (path === '/api/wol/scan' && method === 'POST') {
        started = true;
        answer = { ret: 0, scan: scanOf({ probed: 0, phase: 'neighbours' }) };
      } else if (path === '/api/wol/scan') answer = { ret: 0, scan: !started ? null : ++asked < 2 ? scanOf({}) : done };
      else if (path === '/api/wol/rules' && method === 'POST') answer = { ret: 0, key: 'k2' };
      return new Response(JSON.stringify(answer));
    }),
  );
  return sent;
}

describe('find devices', () => {
  it('offers each network but loopback; a network past /22 is shown and cannot be picked', () => {
    expect(scanChoices(IFS).map((c) => [c.value, c.tooLarge])).toEqual([
      ['wan0|10.20.30.40', true],
      ['br-lan|192.168.8.1', false],
    ]);
  });

  it('names a found device by mDNS, then DNS, then vendor and address, and fills the new device from the scan', () => {
    expect(deviceName(found({}))).toBe('nas');
    expect(deviceName(found({ mdnsName: '', dnsName: 'pi.lan' }))).toBe('pi');
    expect(deviceName(found({ mdnsName: '' }))).toBe('Synology 192.168.8.12');
    expect(deviceName(found({ mdnsName: '', vendor: '' }))).toBe('192.168.8.12');
    expect(scannedDevice(found({}), { interface: 'br-lan', broadcast: '192.168.8.255' })).toEqual({ name: 'nas', macs: ['00:11:32:5c:a0:12'], broadcast: '192.168.8.255', interface: 'br-lan', checkHost: '192.168.8.12', checkPort: 0, note: 'Synology' });
  });

  it('scans the picked interface, shows its progress and results, and adds a device in one click', async () => {
    const sent = stubDaemon();
    renderWithProviders(<FindDevicesDialog onClose={() => undefined} />, testQueryClient());
    const select = (await screen.findByTestId('wol-scan-interface')) as HTMLSelectElement;
    await waitFor(() => expect([...select.options].map((o) => [o.value, o.disabled])).toEqual([
      ['wan0|10.20.30.40', true],
      ['br-lan|192.168.8.1', false],
    ]));
    // The first network that can be scanned is chosen for the user.
    expect(select.value).toBe('br-lan|192.168.8.1');
    expect(sent.filter((s) => s.path === '/api/wol/scan' && s.method === 'POST')).toEqual([]);

    fireEvent.click(screen.getByTestId('wol-scan-start'));
    await waitFor(() => expect(screen.getByTestId('wol-scan-phase').textContent).toBe('探测地址 128/253…'), { timeout: 3000 });
    expect(sent.find((s) => s.method === 'POST')).toEqual({ method: 'POST', path: '/api/wol/scan', body: { interface: 'br-lan', address: '192.168.8.1' } });
    await waitFor(() => expect(screen.getByTestId('wol-scan-phase').textContent).toBe('完成：192.168.8.0/24 中找到 2 台设备，用时 3.2 秒'), { timeout: 3000 });
    expect(screen.getByTestId('wol-scan-progress').getAttribute('data-value')).toBe('100');

    const rows = screen.getAllByTestId('wol-scan-row');
    expect(rows.map((r) => r.getAttribute('data-mac'))).toEqual(['b8:27:eb:5c:a0:11', '00:11:32:5c:a0:12']);
    // Saved already: no add button.
    expect(within(rows[0]!).getByTestId('wol-scan-known').textContent).toBe('已添加');
    expect(within(rows[0]!).queryByTestId('wol-scan-add')).toBeNull();
    expect(within(rows[1]!).getByText('nas.local')).toBeTruthy();

    fireEvent.click(within(rows[1]!).getByTestId('wol-scan-add'));
    await waitFor(() => expect(sent.some((s) => s.path === '/api/wol/rules')).toBe(true));
    expect(sent.find((s) => s.path === '/api/wol/rules')).toEqual({
      method: 'POST',
      path: '/api/wol/rules',
      body: { name: 'nas', macs: ['00:11:32:5c:a0:12'], broadcast: '192.168.8.255', interface: 'br-lan', checkHost: '192.168.8.12', checkPort: 0, note: 'Synology' },
    });
    await waitFor(() => expect(within(rows[1]!).getByTestId('wol-scan-add').textContent).toBe('已添加'));
  });
});
