/** Wake-on-LAN: devices to wake with a magic packet (UDP broadcast, optional SecureOn password). */
import { z } from 'zod';
import { ok } from './envelope.js';
import { msgKey } from './i18n.js';
import { ZIpv4, ZMac, ZNonEmpty } from './net.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleParams } from './rules.js';
import { secret } from './secrets.js';

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
  note: z.string().max(512).default(''),
});
export type WolDevice = z.infer<typeof ZWolDevice>;

export const ZWolDeviceView = ruleView(ZWolDevice, {
  lastWake: z.number().nullable(),
});
export type WolDeviceView = z.infer<typeof ZWolDeviceView>;

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
  },
);
export const wolRoutes = wolContract.routes;
