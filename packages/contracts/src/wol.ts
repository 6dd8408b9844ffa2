/** Wake-on-LAN: devices to wake with a magic packet (UDP broadcast, optional SecureOn password). */
import { z } from 'zod';
import { ok } from './envelope.js';
import { ZHttpMethod } from './http.js';
import { msgKey } from './i18n.js';
import { ZIpv4, ZMac, ZNonEmpty } from './net.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleParams } from './rules.js';
import { secret, SECRET_MASK } from './secrets.js';

/**
 * How the daemon shuts a device down: a command run here (`ssh user@host poweroff`; its whole
 * process group killed at the timeout, output bounded) or a URL called (the DDNS webhook's
 * variables). `none` for a device that is only woken.
 */
export const ZWolShutdown = z
  .object({
    kind: z.enum(['none', 'command', 'url']).default('none'),
    // Both often carry a password or token (`sshpass -p …`, `?token=…`): secrets.
    command: secret(z.string().trim().max(4096)).default(''),
    url: secret(z.string().trim().max(2048)).default(''),
    method: ZHttpMethod.default('GET'),
    body: z.string().max(16384).default(''),
    /** Seconds. */
    timeout: z.number().int().min(1).max(600).default(30),
  })
  .superRefine((s, ctx) => {
    if (s.kind === 'command' && s.command === '') ctx.addIssue({ code: 'custom', path: ['command'], message: msgKey('cannotBeEmpty') });
    // The mask stands for a stored URL (answers show it so): judged once restored.
    if (s.kind === 'url' && s.url !== SECRET_MASK && !/^https?:\/\/\S+$/i.test(s.url)) ctx.addIssue({ code: 'custom', path: ['url'], message: msgKey('invalidUrl') });
  });
export type WolShutdown = z.infer<typeof ZWolShutdown>;
export const WOL_NO_SHUTDOWN: WolShutdown = { kind: 'none', command: '', url: '', method: 'GET', body: '', timeout: 30 };

export const ZWolDevice = z.object({
  name: ZNonEmpty.max(64),
  enable: z.boolean().default(true),
  macs: z.array(ZMac).min(1, { error: msgKey('cannotBeEmpty') }).max(16),
  /** Where the packet goes; a directed broadcast such as 192.168.1.255 crosses VLAN-less routers. */
  broadcast: ZIpv4.default('255.255.255.255'),
  port: z.number().int().min(1).max(65535).default(9),
  /** SecureOn password: 6 bytes as hex or MAC notation, empty for none. */
  secureOn: secret(
    z
      .string()
      .trim()
      .regex(/^$|^([0-9a-fA-F]{2}[:-]?){5}[0-9a-fA-F]{2}$/, { error: msgKey('invalidMac') }),
  ).default(''),
  /** Packets sent per wake; some NICs miss the first one while the switch learns. */
  repeat: z.number().int().min(1).max(10).default(3),
  /** The interface to send from (its IPv4 address is the packets' source); empty for the system's choice. */
  interface: z.string().trim().max(64).regex(/^[\w.:@-]*$/, { error: msgKey('wolBadInterface') }).default(''),
  /** More broadcast addresses the packets go to as well (several subnets, VLANs). */
  targets: z.array(ZIpv4).max(8).default([]),
  /** Where to check whether the device is up: an address (or host name); empty for no check. */
  checkHost: z.string().trim().max(253).regex(/^$|^[A-Za-z0-9.:-]+$/, { error: msgKey('wolBadCheckHost') }).default(''),
  /** The TCP port that answers when the device is up; 0 for ICMP echo (ping). */
  checkPort: z.number().int().min(0).max(65535).default(0),
  shutdown: ZWolShutdown.default(WOL_NO_SHUTDOWN),
  note: z.string().max(512).default(''),
});
export type WolDevice = z.infer<typeof ZWolDevice>;

export const ZWolDeviceView = ruleView(ZWolDevice, {
  lastWake: z.number().nullable(),
});

export const ZWolOnline = z.enum(['online', 'offline', 'unknown']);
export type WolOnline = z.infer<typeof ZWolOnline>;

/**
 * An interface the packets can leave from, with the broadcast address of its IPv4 network; `subnet`
 * (`10.0.0.0/24`) and `prefix` for the device finder's picker, `internal` for loopback.
 */
export const ZWolInterface = z.object({ name: z.string(), address: z.string(), broadcast: z.string(), subnet: z.string(), prefix: z.number(), internal: z.boolean() });
export type WolInterface = z.infer<typeof ZWolInterface>;
export type WolDeviceView = z.infer<typeof ZWolDeviceView>;

/** The largest subnet the device finder sweeps: a /22 (1022 addresses). */
export const WOL_SCAN_MIN_PREFIX = 22;

export const ZWolScanRequest = z.object({
  interface: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(64).regex(/^[\w.:@-]+$/, { error: msgKey('wolBadInterface') }),
  /** Which of the interface's IPv4 networks, by its address there; its first one when absent. */
  address: ZIpv4.optional(),
});

/** A device the finder saw: its address and MAC from the neighbour table, names where they answered. */
export const ZWolScanDevice = z.object({
  address: z.string(),
  mac: z.string(),
  /** From the small vendor table shipped with Lucky; empty when the prefix is not in it. */
  vendor: z.string(),
  /** PTR through the system's resolver (hosts file, DNS). */
  dnsName: z.string(),
  /** The answer to a multicast DNS reverse query on the scanned link. */
  mdnsName: z.string(),
  /** The key of a saved device with this MAC already, or null. */
  known: z.string().nullable(),
});
export type WolScanDevice = z.infer<typeof ZWolScanDevice>;

export const ZWolScanPhase = z.enum(['neighbours', 'sweep', 'names', 'done']);
export const ZWolScan = z.object({
  interface: z.string(),
  /** The interface's own address: the probes' source, never listed. */
  address: z.string(),
  subnet: z.string(),
  broadcast: z.string(),
  state: z.enum(['running', 'done', 'failed']),
  phase: ZWolScanPhase,
  /** Addresses probed so far, of `total`. */
  probed: z.number(),
  total: z.number(),
  startedAt: z.number(),
  finishedAt: z.number().nullable(),
  /** Why it failed, in the reader's language; empty otherwise. */
  msg: z.string(),
  devices: z.array(ZWolScanDevice),
});
export type WolScan = z.infer<typeof ZWolScan>;

export const ZWolConfigure = z.object({
  /** Default repeat for new devices. */
  defaultRepeat: z.number().int().min(1).max(10).default(3),
});
export type WolConfigure = z.infer<typeof ZWolConfigure>;

export const wolContract = moduleContract(
  'wol',
  { input: ZWolDevice, view: ZWolDeviceView, configure: ZWolConfigure },
  {
    wake: route({
      method: 'POST',
      path: '/api/wol/rules/:key/wake',
      summary: 'Send the magic packet to a device now',
      module: 'wol',
      params: ZRuleParams,
      response: ok({ msg: z.string(), sent: z.number() }),
    }),
    wakeWait: route({
      method: 'POST',
      path: '/api/wol/rules/:key/wakewait',
      summary: 'Wake a device and wait until its check address answers (or the timeout passes)',
      module: 'wol',
      params: ZRuleParams,
      query: z.object({ timeout: z.coerce.number().int().min(1).max(600).default(180) }),
      response: ok({ msg: z.string(), online: z.boolean(), ms: z.number() }),
    }),
    shutdown: route({
      method: 'POST',
      path: '/api/wol/rules/:key/shutdown',
      summary: "Shut a device down now with its shutdown command or URL; answers with the command's exit code or the URL's HTTP status and the output",
      module: 'wol',
      params: ZRuleParams,
      response: ok({ msg: z.string(), ok: z.boolean(), exitCode: z.number().nullable(), httpStatus: z.number().nullable(), output: z.string(), truncated: z.boolean() }),
    }),
    online: route({
      method: 'GET',
      path: '/api/wol/online',
      summary: 'Whether each device with a check address answers now (asked while the list is open; a few probes at a time)',
      module: 'wol',
      response: ok({ online: z.record(z.string(), ZWolOnline) }),
    }),
    interfaces: route({
      method: 'GET',
      path: '/api/wol/interfaces',
      summary: 'Interfaces to send from, each with its IPv4 broadcast address',
      module: 'wol',
      response: ok({ interfaces: z.array(ZWolInterface) }),
    }),
    scan: route({
      method: 'POST',
      path: '/api/wol/scan',
      summary: "Find devices: read the interface's neighbour table, then probe every address of its subnet (at most a /22) and ask their names; answers at once with the scan's progress (one scan at a time)",
      module: 'wol',
      body: ZWolScanRequest,
      response: ok({ scan: ZWolScan }),
    }),
    scanState: route({
      method: 'GET',
      path: '/api/wol/scan',
      summary: 'The running or last scan: progress and the devices found so far',
      module: 'wol',
      response: ok({ scan: ZWolScan.nullable() }),
    }),
  },
);
export const wolRoutes = wolContract.routes;
