import { describe, expect, it } from 'vitest';
import { stunTextIn } from './i18n';

describe('STUN texts', () => {
  it('name the menu entry, the states, the modes and the mappings in both languages', () => {
    expect(stunTextIn('zh_CN')('title')).toBe('STUN内网穿透');
    for (const l of ['zh_CN', 'en_US'] as const) {
      const text = stunTextIn(l);
      for (const s of ['running', 'stopped', 'error', 'disabled', 'waiting'] as const) expect(text(`state.${s}`)).toBeTruthy();
      for (const m of ['forward', 'none'] as const) expect(text(`mode.${m}`)).toBeTruthy();
      for (const k of ['upnp', 'natpmp'] as const) expect(text(`mapping.${k}`)).toBeTruthy();
      for (const s of ['pending', 'ok', 'failed'] as const) expect(text(`mappingState.${s}`)).toBeTruthy();
      // The webhook's variables are the contract's: #{ip} #{port} #{addr} #{ruleName} #{localPort} #{protocol}.
      expect(text('webhookVars')).toMatch(/#\{ip\} #\{port\} #\{addr\} #\{ruleName\} #\{localPort\} #\{protocol\}/);
    }
  });
});
