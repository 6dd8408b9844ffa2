// SRV and HTTPS RDATA against RFC 9460's test vectors (Appendix D) and by hand for SRV (RFC 2782's
// layout); refusals for what is not a record.
import { describe, expect, it } from 'vitest';
import { httpsRdata, httpsText, srvRdata, srvText } from './svcrdata.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('SRV and HTTPS records', () => {
  it('encodes RFC 9460 D.2 "A Specified Port" and reads it back', () => {
    const wire = hex('0010 03666f6f 076578616d706c65 03636f6d 00 0003 0002 0035');
    expect(httpsRdata('16 foo.example.com. port=53')).toEqual(wire);
    expect(httpsText(wire)).toBe('16 foo.example.com. port=53');
  });

  it('encodes RFC 9460 D.2 "Multiple IPv6 Hints" and orders parameters by key', () => {
    const wire = hex('0001 03666f6f 076578616d706c65 03636f6d 00 0006 0020 20010db8000000000000000000000001 20010db8000000000000000000530001');
    expect(httpsRdata('1 foo.example.com. ipv6hint=2001:db8::1,2001:db8::53:1')).toEqual(wire);
    const mixed = httpsRdata('1 . port=8443 alpn=h2,http/1.1 ipv4hint=192.0.2.7');
    expect(httpsText(mixed)).toBe('1 . alpn=h2,http/1.1 port=8443 ipv4hint=192.0.2.7');
  });

  it('encodes SRV as priority, weight, port and an uncompressed target', () => {
    const wire = srvRdata('0 5 8443 ha.lab.test.');
    expect(wire).toEqual(hex('0000 0005 20fb 026861 036c6162 0474657374 00'));
    expect(srvText(wire)).toBe('0 5 8443 ha.lab.test.');
  });

  it('refuses what is not such a record', () => {
    for (const v of ['', '0 0 70000 x.', '0 0 80', 'a b c d.', '0 0 80 x. extra']) expect(() => srvRdata(v), v).toThrow(/SRV/);
    for (const v of ['', '1', '1 . port=x', '1 . mandatory=alpn', '1 . port=1 port=2', '1 . ipv4hint=::1', '1 . alpn=']) expect(() => httpsRdata(v), v).toThrow(/HTTPS/);
  });
});
