/** A device's state before any poll, for the console's tests. */
import type { WanjiDeviceState } from '@lucky/contracts';

export const emptyFigures = (): WanjiDeviceState => ({
  online: 'unknown',
  lastSeen: null,
  lastPoll: null,
  error: '',
  latency: null,
  version: '',
  hostname: '',
  scope: null,
  uptime: null,
  cpu: null,
  memory: null,
  rss: null,
  modules: [],
  rules: {},
  ruleErrors: 0,
  ddnsFailing: null,
  certsExpiring: null,
  history: { cpu: [], memory: [], latency: [] },
});
