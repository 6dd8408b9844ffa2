import { ZTlsCert, ZWebCert } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { certToBody, certToForm, emptyCert, tlsCertToBody, TLS_CERT_SOURCES, WEB_CERT_SOURCES } from './certs';

describe('certificate forms', () => {
  it('web rules offer the automatic source besides the three every listener has', () => {
    expect(TLS_CERT_SOURCES).toEqual(['pem', 'file', 'store']);
    expect(WEB_CERT_SOURCES).toEqual(['pem', 'file', 'store', 'auto']);
    expect(emptyCert('pem')).toEqual({ source: 'pem', cert: '', key: '', domains: '', challenge: 'http-01', dnsTask: '' });
  });

  it('an automatic certificate goes with its names and challenge only, and comes back the same', () => {
    const f = { ...emptyCert('auto'), domains: ' a.example.com \n\nb.example.com', cert: 'left over', key: 'left over' };
    const body = certToBody(f);
    expect(body).toEqual({ source: 'auto', cert: '', key: '', domains: ['a.example.com', 'b.example.com'], challenge: 'http-01', dnsTask: '' });
    expect(ZWebCert.parse(body)).toEqual(body);
    expect(certToForm(body)).toEqual({ source: 'auto', cert: '', key: '', domains: 'a.example.com\nb.example.com', challenge: 'http-01', dnsTask: '' });
    // No names: the sub rules' (the daemon fills them in), still a valid certificate.
    expect(ZWebCert.safeParse(certToBody(emptyCert('auto'))).success).toBe(true);
  });

  it('DNS-01 sends its DDNS task, HTTP-01 drops a task picked before', () => {
    const dns = { ...emptyCert('auto'), challenge: 'dns-01' as const, dnsTask: 'k7', domains: '*.example.com' };
    expect(certToBody(dns)).toMatchObject({ challenge: 'dns-01', dnsTask: 'k7', domains: ['*.example.com'] });
    expect(certToBody({ ...dns, challenge: 'http-01' })).toMatchObject({ challenge: 'http-01', dnsTask: '' });
    // The contract wants the task with DNS-01.
    expect(ZWebCert.safeParse(certToBody({ ...dns, dnsTask: '' })).success).toBe(false);
  });

  it("the other sources keep the contract's challenge defaults; what the automatic one held does not follow", () => {
    const f = { ...emptyCert('auto'), challenge: 'dns-01' as const, dnsTask: 'k7' };
    expect(certToBody({ ...f, source: 'file', cert: ' /c.pem ', key: ' /k.pem ' })).toEqual({ source: 'file', cert: '/c.pem', key: '/k.pem', domains: [], challenge: 'http-01', dnsTask: '' });
    expect(certToBody({ ...f, source: 'store', cert: 'site' })).toMatchObject({ source: 'store', cert: 'site', challenge: 'http-01', dnsTask: '' });
  });

  it('WebDAV and FTPS certificates (ZTlsCert) have no challenge fields', () => {
    const stored = ZTlsCert.parse({ source: 'pem', cert: 'C', key: 'K', domains: ['a.example.com'] });
    const f = certToForm(stored);
    expect(f).toMatchObject({ source: 'pem', domains: 'a.example.com', challenge: 'http-01', dnsTask: '' });
    expect(tlsCertToBody(f)).toEqual(stored);
  });
});
