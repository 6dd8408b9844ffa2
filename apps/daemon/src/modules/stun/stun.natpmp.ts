/**
 * NAT-PMP client (RFC 6886): the router's external address, and UDP/TCP mappings, over UDP 5351.
 * Each request has its own socket, connected to the gateway, so only the gateway's answers reach
 * it and concurrent requests never take each other's answers.
 */
import dgram from 'node:dgram';
import { MsgError } from '../../lib/msgerror.js';
import { defaultGateway } from './stun.gateway.js';
import type { MapRequest, MapResult, PortMapper } from './stun.portmap.js';

export const NATPMP_PORT = 5351;
const OP_EXTERNAL = 0;
const OP_MAP_UDP = 1;
const OP_MAP_TCP = 2;
const RESPONSE = 128;

export interface NatpmpOptions {
  /** The router's address; default: the default route's gateway, looked up at each request. */
  gateway?: string;
  /** The first wait for an answer, doubled at every retransmission (RFC 6886: 250 ms). */
  timeoutMs?: number;
  /** Sends before giving up (RFC 6886: 9, about two minutes in all). */
  attempts?: number;
}

export function natpmpMapper(o: NatpmpOptions = {}): PortMapper {
  const firstWait = o.timeoutMs ?? 250;
  const attempts = Math.max(1, o.attempts ?? 9);
  const open = new Set<dgram.Socket>();

  const gatewayOf = (): string => {
    const gw = o.gateway || defaultGateway();
    if (!gw) throw new MsgError({ key: 'stunNatpmpNoGateway' });
    return gw;
  };

  /** Sends `req` until an answer with opcode `op + 128` (and passing `accept`) comes, or gives up. */
  const ask = (gateway: string, req: Buffer, accept: (res: Buffer) => boolean): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const sock = dgram.createSocket('udp4');
      open.add(sock);
      let timer: NodeJS.Timeout | undefined;
      let sent = 0;
      let wait = firstWait;
      let total = 0;
      const done = (err: Error | null, res?: Buffer) => {
        clearTimeout(timer);
        open.delete(sock);
        try {
          sock.close();
        } catch {
          // closed by close()
        }
        if (err) reject(err);
        else resolve(res!);
      };
      const op = req[1] ?? 0;
      sock.on('message', (m) => {
        if (m.length < 8 || m[0] !== 0 || m[1] !== op + RESPONSE || !accept(m)) return;
        const result = m.readUInt16BE(2);
        if (result !== 0) done(new MsgError({ key: 'stunNatpmpRefused', vars: { code: result } }));
        else done(null, m);
      });
      // ICMP unreachable shows up here: the router may only be starting, so keep retransmitting.
      sock.on('error', () => {});
      sock.on('close', () => {
        if (open.has(sock)) {
          open.delete(sock);
          clearTimeout(timer);
          reject(new Error('NAT-PMP client closed'));
        }
      });
      const send = () => {
        if (sent === attempts) {
          done(new MsgError({ key: 'stunNatpmpNoAnswer', vars: { gateway, seconds: Math.round(total / 100) / 10 } }));
          return;
        }
        sent++;
        sock.send(req, () => {});
        timer = setTimeout(send, wait);
        total += wait;
        wait *= 2;
      };
      sock.connect(NATPMP_PORT, gateway, (err?: Error) => {
        if (err) done(err);
        else send();
      });
    });

  const mapping = async (protocol: 'udp' | 'tcp', internalPort: number, externalPort: number, lifetimeSec: number) => {
    const gateway = gatewayOf();
    const req = Buffer.alloc(12);
    req[0] = 0;
    req[1] = protocol === 'udp' ? OP_MAP_UDP : OP_MAP_TCP;
    req.writeUInt16BE(internalPort, 4);
    req.writeUInt16BE(externalPort, 6);
    req.writeUInt32BE(lifetimeSec, 8);
    const res = await ask(gateway, req, (m) => m.length >= 16 && m.readUInt16BE(8) === internalPort);
    return { gateway, externalPort: res.readUInt16BE(10), lifetimeSec: res.readUInt32BE(12) };
  };

  return {
    kind: 'natpmp',
    async map(req: MapRequest): Promise<MapResult> {
      // NAT-PMP has no permanent mappings, and lifetime 0 would mean "delete": ask for the most.
      const lifetime = req.lifetimeSec > 0 ? req.lifetimeSec : 0xffffffff;
      return mapping(req.protocol, req.internalPort, req.externalPort, lifetime);
    },
    async unmap(req) {
      // Deleting names the internal port; the suggested external port must be 0 (RFC 6886 3.4).
      await mapping(req.protocol, req.internalPort, 0, 0);
    },
    async externalAddress() {
      const res = await ask(gatewayOf(), Buffer.from([0, OP_EXTERNAL]), (m) => m.length >= 12);
      return [res[8], res[9], res[10], res[11]].join('.');
    },
    close() {
      for (const s of [...open]) s.close();
    },
  };
}
