import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  bindingRequest,
  decodeStun,
  encodeStun,
  isStunPacket,
  mappedOf,
  STUN_ATTR,
  stunFrameLength,
  StunParseError,
  verifyIntegrity,
} from './stun.message.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// RFC 5769 (test vectors for STUN), section 2, typed in from the RFC's hex dumps.
const TID = hex('b7 e7 a7 01 bc 34 d6 86 fa 87 df ae');
const PASSWORD = 'VOkJxbRl1RmTxUk/WvJxBt';
const SAMPLE_REQUEST = hex(`
  00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
  80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
  00 24 00 04 6e 00 01 ff
  80 29 00 08 93 2f f9 b1 51 26 3b 36
  00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20
  00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2
  80 28 00 04 e5 7a 3b cf`);
const SAMPLE_IPV4_RESPONSE = hex(`
  01 01 00 3c 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
  80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
  00 20 00 08 00 01 a1 47 e1 12 a6 43
  00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7
  80 28 00 04 c0 7d 4c 96`);
const SAMPLE_IPV6_RESPONSE = hex(`
  01 01 00 48 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
  80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
  00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9
  00 08 00 14 a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41
  80 28 00 04 c8 fb 0b 4c`);

function flip(buf: Buffer, at: number): Buffer {
  const b = Buffer.from(buf);
  b[at] = b[at]! ^ 0x01;
  return b;
}

describe('RFC 5769 test vectors', () => {
  it('2.1 sample request: attributes, MESSAGE-INTEGRITY with the password, FINGERPRINT', () => {
    expect(isStunPacket(SAMPLE_REQUEST)).toBe(true);
    const m = decodeStun(SAMPLE_REQUEST);
    expect(m.cls).toBe('request');
    expect(m.method).toBe(1);
    expect(m.transactionId.equals(TID)).toBe(true);
    expect(m.attrs.software).toBe('STUN test client');
    expect(m.attrs.username).toBe('evtj:h6vY');
    expect(m.fingerprint).toBe(true);
    // PRIORITY (0x0024) is comprehension-required and unknown here; ICE-CONTROLLED (0x8029) is optional.
    expect(m.unknownRequired).toEqual([0x0024]);
    expect(m.raw.map((r) => r.type)).toEqual([STUN_ATTR.SOFTWARE, 0x0024, 0x8029, STUN_ATTR.USERNAME]);
    expect(verifyIntegrity(SAMPLE_REQUEST, m, PASSWORD)).toBe(true);
    expect(verifyIntegrity(SAMPLE_REQUEST, m, 'wrong password')).toBe(false);
  });

  it('2.2 IPv4 response: 192.0.2.1:32853', () => {
    const m = decodeStun(SAMPLE_IPV4_RESPONSE);
    expect(m.cls).toBe('success');
    expect(m.method).toBe(1);
    expect(m.attrs.software).toBe('test vector');
    expect(m.attrs.xorMappedAddress).toEqual({ address: '192.0.2.1', port: 32853 });
    expect(mappedOf(m)).toEqual({ address: '192.0.2.1', port: 32853 });
    expect(m.fingerprint).toBe(true);
    expect(verifyIntegrity(SAMPLE_IPV4_RESPONSE, m, PASSWORD)).toBe(true);
  });

  it('2.3 IPv6 response: [2001:db8:1234:5678:11:2233:4455:6677]:32853', () => {
    const m = decodeStun(SAMPLE_IPV6_RESPONSE);
    expect(m.attrs.xorMappedAddress).toEqual({ address: '2001:db8:1234:5678:11:2233:4455:6677', port: 32853 });
    expect(m.fingerprint).toBe(true);
    expect(verifyIntegrity(SAMPLE_IPV6_RESPONSE, m, PASSWORD)).toBe(true);
  });

  it('a changed bit breaks the FINGERPRINT (decode refuses) or the MESSAGE-INTEGRITY', () => {
    expect(() => decodeStun(flip(SAMPLE_IPV4_RESPONSE, 30))).toThrow(StunParseError);
    // The last byte is the FINGERPRINT itself.
    expect(() => decodeStun(flip(SAMPLE_IPV4_RESPONSE, SAMPLE_IPV4_RESPONSE.length - 1))).toThrow(/FINGERPRINT/);
    // Without its FINGERPRINT (length fixed up), a changed address only shows in the integrity check.
    const noFp = Buffer.from(SAMPLE_IPV4_RESPONSE.subarray(0, SAMPLE_IPV4_RESPONSE.length - 8));
    noFp.writeUInt16BE(noFp.length - 20, 2);
    expect(verifyIntegrity(noFp, decodeStun(noFp), PASSWORD)).toBe(true);
    const tampered = flip(noFp, 36);
    const t = decodeStun(tampered);
    expect(t.attrs.xorMappedAddress?.address).not.toBe('192.0.2.1');
    expect(verifyIntegrity(tampered, t, PASSWORD)).toBe(false);
  });

  it('our encoder reproduces the vectors’ integrity and fingerprint for the same content', () => {
    // The RFC pads SOFTWARE with spaces where we pad with zeros, so compare by meaning, not bytes.
    const buf = encodeStun({
      cls: 'success',
      transactionId: TID,
      attrs: { software: 'test vector', xorMappedAddress: { address: '192.0.2.1', port: 32853 } },
      integrityKey: PASSWORD,
      fingerprint: true,
    });
    expect(buf.length).toBe(SAMPLE_IPV4_RESPONSE.length);
    // Everything but the padding of SOFTWARE (byte 35) and the two checksums is identical.
    expect(buf.subarray(0, 35).equals(SAMPLE_IPV4_RESPONSE.subarray(0, 35))).toBe(true);
    expect(buf.subarray(36, 48).equals(SAMPLE_IPV4_RESPONSE.subarray(36, 48))).toBe(true);
    const m = decodeStun(buf);
    expect(verifyIntegrity(buf, m, PASSWORD)).toBe(true);
    expect(m.fingerprint).toBe(true);
  });

  it('the IPv6 vector comes out the same from our encoder', () => {
    const buf = encodeStun({ cls: 'success', transactionId: TID, attrs: { xorMappedAddress: { address: '2001:db8:1234:5678:11:2233:4455:6677', port: 32853 } } });
    expect(buf.subarray(20).equals(hex('00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9'))).toBe(true);
  });
});

describe('round trips', () => {
  it('every attribute this codec knows', () => {
    const transactionId = randomBytes(12);
    const attrs = {
      software: 'Lucky ✓',
      username: 'user:frag',
      changeRequest: { changeIp: true, changePort: false },
      errorCode: { code: 438, reason: 'Stale Nonce' },
      xorMappedAddress: { address: '203.0.113.7', port: 61000 },
      mappedAddress: { address: '203.0.113.7', port: 61000 },
      responseOrigin: { address: '198.51.100.1', port: 3478 },
      otherAddress: { address: '198.51.100.2', port: 3479 },
      sourceAddress: { address: '2001:db8::1', port: 3478 },
      changedAddress: { address: 'fe80::1:0:0:2', port: 1 },
    };
    for (const cls of ['request', 'indication', 'success', 'error'] as const) {
      const buf = encodeStun({ cls, transactionId, attrs, integrityKey: 'pw', fingerprint: true });
      expect(isStunPacket(buf)).toBe(true);
      const m = decodeStun(buf);
      expect(m.cls).toBe(cls);
      expect(m.method).toBe(1);
      expect(m.attrs).toEqual(attrs);
      expect(m.unknownRequired).toEqual([]);
      expect(verifyIntegrity(buf, m, 'pw')).toBe(true);
    }
  });

  it('an ERROR-CODE reason loses the NUL padding some servers count into its length', () => {
    const buf = encodeStun({ cls: 'error', transactionId: randomBytes(12), attrs: { errorCode: { code: 420, reason: 'Unknown attribute\0\0' } } });
    expect(decodeStun(buf).attrs.errorCode).toEqual({ code: 420, reason: 'Unknown attribute' });
  });

  it('methods above 0x0f keep their bits apart from the class bits', () => {
    for (const method of [0x003, 0x00f, 0x010, 0x0ff, 0xfff]) {
      const m = decodeStun(encodeStun({ method, cls: 'error', transactionId: randomBytes(12) }));
      expect([m.method, m.cls]).toEqual([method, 'error']);
    }
  });

  it('unknown attributes are skipped with their padding; optional ones are not reported', () => {
    const buf = encodeStun({
      cls: 'success',
      transactionId: randomBytes(12),
      raw: [
        { type: 0x7777, value: Buffer.from([1, 2, 3]) },
        { type: 0xc001, value: Buffer.alloc(5, 9) },
      ],
      attrs: { xorMappedAddress: { address: '10.1.2.3', port: 5 } },
      fingerprint: true,
    });
    const m = decodeStun(buf);
    expect(m.attrs.xorMappedAddress).toEqual({ address: '10.1.2.3', port: 5 });
    expect(m.unknownRequired).toEqual([0x7777]);
    expect(m.raw.find((r) => r.type === 0xc001)?.value.length).toBe(5);
  });

  it('RFC 3489 answers: MAPPED-ADDRESS, SOURCE-ADDRESS and CHANGED-ADDRESS', () => {
    const buf = encodeStun({
      cls: 'success',
      transactionId: randomBytes(12),
      attrs: { mappedAddress: { address: '1.2.3.4', port: 4000 }, sourceAddress: { address: '5.6.7.8', port: 3478 }, changedAddress: { address: '5.6.7.9', port: 3479 } },
    });
    const m = decodeStun(buf);
    expect(mappedOf(m)).toEqual({ address: '1.2.3.4', port: 4000 });
    expect(m.attrs.changedAddress).toEqual({ address: '5.6.7.9', port: 3479 });
  });

  it('a Binding request asks for a change only when told to', () => {
    const plain = decodeStun(bindingRequest().buf);
    expect(plain.cls).toBe('request');
    expect(plain.attrs.changeRequest).toBeUndefined();
    expect(plain.fingerprint).toBe(true);
    const r = bindingRequest({ changePort: true });
    const m = decodeStun(r.buf);
    expect(m.transactionId.equals(r.transactionId)).toBe(true);
    expect(m.attrs.changeRequest).toEqual({ changeIp: false, changePort: true });
  });

  it('IPv6 addresses come out in their RFC 5952 form', () => {
    for (const [given, text] of [
      ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
      ['::', '::'],
      ['::1', '::1'],
      ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
      ['1:0:0:2:0:0:3:4', '1::2:0:0:3:4'],
      ['1:2:3:4:5:6:7:0', '1:2:3:4:5:6:7:0'],
    ] as const) {
      const m = decodeStun(encodeStun({ cls: 'success', transactionId: randomBytes(12), attrs: { otherAddress: { address: given, port: 1 } } }));
      expect(m.attrs.otherAddress?.address).toBe(text);
    }
  });
});

describe('hostile and broken input', () => {
  const good = SAMPLE_IPV4_RESPONSE;

  it('every truncation is refused with a StunParseError, never anything else', () => {
    for (let n = 0; n < good.length; n++) {
      const cut = good.subarray(0, n);
      expect(isStunPacket(cut)).toBe(false);
      expect(() => decodeStun(cut)).toThrow(StunParseError);
    }
  });

  it('a length field that lies, in either direction', () => {
    const longer = Buffer.from(good);
    longer.writeUInt16BE(good.length - 20 + 4, 2);
    expect(isStunPacket(longer)).toBe(false);
    expect(() => decodeStun(longer)).toThrow(StunParseError);
    const odd = Buffer.from(good);
    odd.writeUInt16BE(good.length - 20 - 2, 2);
    expect(() => decodeStun(odd)).toThrow(StunParseError);
  });

  it('not STUN: top bits set, no cookie', () => {
    const top = Buffer.from(good);
    top[0] = 0x80;
    expect(isStunPacket(top)).toBe(false);
    expect(() => decodeStun(top)).toThrow(/not a STUN/);
    const noCookie = Buffer.from(good);
    noCookie[4] = 0;
    expect(isStunPacket(noCookie)).toBe(false);
    expect(() => decodeStun(noCookie)).toThrow(/cookie/);
  });

  it('an attribute that overruns the message, or has an impossible size', () => {
    const over = encodeStun({ cls: 'success', transactionId: randomBytes(12), raw: [{ type: 0x8001, value: Buffer.alloc(8) }] });
    over.writeUInt16BE(200, 22);
    expect(() => decodeStun(over)).toThrow(/overruns/);
    const shortAddr = encodeStun({ cls: 'success', transactionId: randomBytes(12), raw: [{ type: STUN_ATTR.XOR_MAPPED_ADDRESS, value: hex('00 01 a1 47 e1 12') }] });
    expect(() => decodeStun(shortAddr)).toThrow(StunParseError);
    const family = encodeStun({ cls: 'success', transactionId: randomBytes(12), raw: [{ type: STUN_ATTR.MAPPED_ADDRESS, value: hex('00 03 00 01 01 02 03 04') }] });
    expect(() => decodeStun(family)).toThrow(/family/);
    const v6short = encodeStun({ cls: 'success', transactionId: randomBytes(12), raw: [{ type: STUN_ATTR.MAPPED_ADDRESS, value: hex('00 02 00 01 01 02 03 04') }] });
    expect(() => decodeStun(v6short)).toThrow(StunParseError);
    const mi = encodeStun({ cls: 'success', transactionId: randomBytes(12), raw: [{ type: STUN_ATTR.MESSAGE_INTEGRITY, value: Buffer.alloc(8) }] });
    expect(() => decodeStun(mi)).toThrow(/MESSAGE-INTEGRITY/);
    const cr = encodeStun({ cls: 'request', transactionId: randomBytes(12), raw: [{ type: STUN_ATTR.CHANGE_REQUEST, value: Buffer.alloc(2) }] });
    expect(() => decodeStun(cr)).toThrow(/CHANGE-REQUEST/);
  });

  it('attributes after MESSAGE-INTEGRITY are ignored; after FINGERPRINT they are refused', () => {
    const withMi = encodeStun({ cls: 'success', transactionId: randomBytes(12), integrityKey: 'k' });
    const extra = Buffer.concat([withMi, hex('00 20 00 08 00 01 a1 47 e1 12 a6 43')]);
    extra.writeUInt16BE(extra.length - 20, 2);
    const m = decodeStun(extra);
    expect(m.attrs.xorMappedAddress).toBeUndefined();
    expect(verifyIntegrity(extra, m, 'k')).toBe(true);
    const afterFp = Buffer.concat([SAMPLE_IPV4_RESPONSE, hex('80 22 00 00')]);
    afterFp.writeUInt16BE(afterFp.length - 20, 2);
    // The changed length already breaks the FINGERPRINT; either way the message is refused.
    expect(() => decodeStun(afterFp)).toThrow(StunParseError);
  });

  it('random garbage never throws anything but a StunParseError', () => {
    for (let i = 0; i < 5000; i++) {
      const len = 20 + 4 * Math.floor(Math.random() * 20);
      const b = randomBytes(len);
      // Make a good share of them look like STUN so the attribute walk is exercised.
      if (i % 2 === 0) {
        b[0] = b[0]! & 0x3f;
        b.writeUInt16BE(len - 20, 2);
        b.writeUInt32BE(0x2112a442, 4);
      }
      try {
        decodeStun(b);
      } catch (e) {
        expect(e).toBeInstanceOf(StunParseError);
      }
    }
  });

  it('stream framing reads the length from the header, and refuses what is not STUN or too big', () => {
    expect(stunFrameLength(good.subarray(0, 20))).toBe(good.length);
    expect(stunFrameLength(good.subarray(0, 19))).toBeNull();
    expect(stunFrameLength(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))).toBeNull();
    const huge = Buffer.from(good.subarray(0, 20));
    huge.writeUInt16BE(0xfffc, 2);
    expect(stunFrameLength(huge)).toBeNull();
  });
});
