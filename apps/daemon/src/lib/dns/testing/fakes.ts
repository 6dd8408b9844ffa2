/**
 * Local stand-ins for the providers' HTTP APIs, used by the tests and the benchmark. Each keeps
 * records in memory and checks every request the way the real service does: the signature
 * (AliDNS HMAC-SHA1, Tencent TC3-HMAC-SHA256, Huawei SDK-HMAC-SHA256, Baidu BCE v1), the token or
 * key. The checks are written here from the providers' documentation, not shared with the clients.
 * TXT records are kept like the others (one record per value; where the API keeps RRsets — Huawei,
 * deSEC, GoDaddy — the records of one set share `set`); APIs that take TXT as zone-file text
 * (Cloudflare, Huawei, deSEC) refuse it unquoted (their documented form) and answer it quoted;
 * `value` holds the text itself.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drop, hmacHex, newId, pctEncode, quoted, Reject, replaceSet, safeEq, serve, setOf, setRecords, sha256hex, unquoted, upsert, type FakeCreds, type FakeProvider, type FakeRecord } from './fakeserver.js';

import { aliError, checkAliRpc, checkTc3, tencentError } from './fakes/checks.js';
import { DNSPOD_TOKEN_LIMITED, dnspodTokenApi, isTokenRequest } from './fakes/dnspodtoken.js';

export type { FakeCreds, FakeProvider, FakeRecord } from './fakeserver.js';

/** Cloudflare API v4: Bearer token, zones by name, dns_records (TXT content as quoted character-strings). */
export function fakeCloudflare(c: FakeCreds, zoneName = 'example.com'): Promise<FakeProvider> {
  const zone = { id: 'zone-1', name: zoneName };
  return serve('cloudflare', (r, st) => {
    if (r.headers.authorization !== `Bearer ${c.secret}`) {
      throw new Reject(403, { success: false, errors: [{ code: 10000, message: 'Authentication error' }], result: null }, 'bad token');
    }
    const p = r.url.pathname;
    const ok = (result: unknown) => ({ status: 200, body: { success: true, errors: [], result } });
    const bad = (code: number, message: string) => ({ status: 400, body: { success: false, errors: [{ code, message }], result: null } });
    if (r.method === 'GET' && p === '/zones') return ok(r.url.searchParams.get('name') === zone.name ? [zone] : []);
    const m = /^\/zones\/([^/]+)\/dns_records(?:\/([^/]+))?$/.exec(p);
    if (!m || m[1] !== zone.id) return { status: 404, body: { success: false, errors: [{ code: 7003, message: 'Could not route' }] } };
    const view = (x: FakeRecord) => ({ id: x.id, name: x.name, type: x.type, content: x.type === 'TXT' ? quoted(x.value) : x.value, ttl: x.ttl, proxied: false });
    if (r.method === 'GET') {
      const name = r.url.searchParams.get('name');
      const type = r.url.searchParams.get('type');
      return ok([...st.records.values()].filter((x) => x.name === name && x.type === type).map(view));
    }
    if (r.method === 'DELETE' && m[2]) return drop(st, m[2]) ? ok({ id: m[2] }) : { status: 404, body: { success: false, errors: [{ code: 81044, message: 'Record does not exist.' }] } };
    const b = JSON.parse(r.body) as { type: string; name: string; content: string; ttl: number; proxied?: boolean };
    let content = b.content;
    if (b.type === 'TXT') {
      if (b.proxied) return bad(9004, 'This record type cannot be proxied.');
      const text = unquoted(b.content);
      if (text === null) return bad(1004, 'DNS Validation Error: TXT content must consist of quoted character strings.');
      content = text;
    }
    if (r.method === 'POST' && !m[2]) return ok(view(upsert(st, b.name, b.type, content, b.ttl)));
    if (r.method === 'PUT' && m[2] && st.records.has(m[2])) return ok(view(upsert(st, b.name, b.type, content, b.ttl, m[2])));
    return bad(1000, 'bad request');
  }, { limited: { status: 429, headers: { 'retry-after': '0' }, body: { success: false, errors: [{ code: 971, message: 'Please wait and consider throttling your request speed' }], result: null } } });
}

/** Alibaba Cloud DNS RPC API: signature version 1.0 (HMAC-SHA1 over the sorted, encoded query). */
export function fakeAliDns(c: FakeCreds): Promise<FakeProvider> {
  const nonces = new Set<string>();
  return serve('alidns', (r, st) => {
    const q = checkAliRpc(r, c, nonces);
    const reject = (code: string, msg: string) => aliError(code, msg);
    if (q.DomainName !== undefined && q.DomainName !== 'example.com') throw reject('InvalidDomainName.NoExist', 'The specified domain name does not exist. Refresh the page and try again.');
    const view = (x: FakeRecord, root: string) => ({
      RecordId: x.id,
      RR: x.name === root ? '@' : x.name.slice(0, -root.length - 1),
      Type: x.type,
      Value: x.value,
      TTL: x.ttl,
      Line: 'default',
      DomainName: root,
    });
    switch (q.Action) {
      case 'DescribeSubDomainRecords': {
        const recs = [...st.records.values()].filter((x) => x.name === q.SubDomain && (!q.Type || x.type === q.Type));
        return { status: 200, body: { TotalCount: recs.length, DomainRecords: { Record: recs.map((x) => view(x, q.DomainName ?? '')) } } };
      }
      case 'AddDomainRecord': {
        if (Number(q.TTL) < 600) throw reject('DomainRecordTTLInvalid', 'TTL below 600');
        const name = q.RR === '@' ? q.DomainName! : `${q.RR}.${q.DomainName}`;
        if (st.all(name, q.Type!).some((x) => x.value === q.Value)) throw reject('DomainRecordDuplicate', 'The DNS record already exists.');
        return { status: 200, body: { RecordId: upsert(st, name, q.Type!, q.Value!, Number(q.TTL)).id } };
      }
      case 'DeleteDomainRecord':
        if (!drop(st, q.RecordId ?? '')) throw reject('DomainRecordNotBelongToUser', 'no such record');
        return { status: 200, body: { RecordId: q.RecordId } };
      case 'DeleteSubDomainRecords': {
        const name = q.RR === '@' ? q.DomainName! : `${q.RR}.${q.DomainName}`;
        const gone = [...st.records.values()].filter((x) => x.name === name && (!q.Type || x.type === q.Type));
        for (const x of gone) drop(st, x.id);
        return { status: 200, body: { RR: q.RR, TotalCount: String(gone.length) } };
      }
      case 'UpdateDomainRecord': {
        const old = st.records.get(q.RecordId ?? '');
        if (!old) throw reject('DomainRecordNotBelongToUser', 'no such record');
        const root = old.name.endsWith(`.${q.RR}`) ? old.name : old.name.split('.').slice(-2).join('.');
        const name = q.RR === '@' ? root : `${q.RR}.${root}`;
        if (old.value === q.Value && old.type === q.Type) throw reject('DomainRecordDuplicate', 'The DNS record already exists.');
        upsert(st, name, q.Type!, q.Value!, Number(q.TTL), old.id);
        return { status: 200, body: { RecordId: old.id } };
      }
    }
    throw reject('InvalidAction.NotFound', 'action');
  }, { limited: { status: 400, body: { Code: 'Throttling.User', Message: 'Request was denied due to user flow control.', RequestId: 'x' } } });
}

/** Tencent Cloud API 3.0 for DNSPod and Tencent Cloud DNS: TC3-HMAC-SHA256 over content-type and host; DNSPod's own API with a DNSPod Token beside it (fakes/dnspodtoken.ts). */
export function fakeDnspod(c: FakeCreds, name = 'dnspod'): Promise<FakeProvider> {
  return serve(name, (r, st) => {
    if (isTokenRequest(r)) return dnspodTokenApi(r, st);
    checkTc3(r, c);
    const err = tencentError;
    const b = JSON.parse(r.body || '{}') as Record<string, string | number>;
    if (b.Domain !== undefined && b.Domain !== 'example.com') throw err('InvalidParameterValue.DomainNotExists', '当前域名有误，请返回重新操作。');
    const full = (sub: unknown, dom: unknown) => (sub === '@' ? String(dom) : `${String(sub)}.${String(dom)}`);
    const view = (x: FakeRecord) => ({ RecordId: Number(x.id), Name: x.name === b.Domain ? '@' : x.name.slice(0, -String(b.Domain).length - 1), Type: x.type, Value: x.value, TTL: x.ttl, Line: '默认' });
    const ok = (o: object) => ({ status: 200, body: { Response: { ...o, RequestId: 'x' } } });
    switch (r.headers['x-tc-action']) {
      case 'DescribeRecordList': {
        const recs = [...st.records.values()].filter((x) => x.name === full(b.Subdomain, b.Domain) && x.type === b.RecordType);
        if (!recs.length) return { status: 200, body: { Response: { Error: { Code: 'ResourceNotFound.NoDataOfRecord', Message: '记录列表为空。' }, RequestId: 'x' } } };
        return ok({ RecordList: recs.map(view) });
      }
      case 'CreateRecord': {
        if (Number(b.TTL) < 600) throw err('InvalidParameter.TTLInvalid', 'TTL');
        const name = full(b.SubDomain, b.Domain);
        if (st.all(name, String(b.RecordType)).some((x) => x.value === String(b.Value))) throw err('InvalidParameter.DomainRecordExist', '记录已经存在，无需再次添加。');
        return ok({ RecordId: Number(upsert(st, name, String(b.RecordType), String(b.Value), Number(b.TTL)).id) });
      }
      case 'DeleteRecord': {
        const rec = st.records.get(String(b.RecordId));
        if (!rec || !(rec.name === b.Domain || rec.name.endsWith(`.${String(b.Domain)}`))) throw err('InvalidParameter.RecordIdInvalid', 'record');
        drop(st, rec.id);
        return ok({});
      }
      case 'ModifyRecord': {
        if (!st.records.has(String(b.RecordId))) throw err('InvalidParameter.RecordIdInvalid', 'record');
        upsert(st, full(b.SubDomain, b.Domain), String(b.RecordType), String(b.Value), Number(b.TTL), String(b.RecordId));
        return ok({ RecordId: b.RecordId });
      }
    }
    throw err('InvalidAction', 'action');
  }, { limited: (r) => (isTokenRequest(r) ? DNSPOD_TOKEN_LIMITED : { status: 200, body: { Response: { Error: { Code: 'RequestLimitExceeded', Message: '请求的次数超过了频率限制。' }, RequestId: 'x' } } }) });
}

/** Huawei Cloud DNS v2: APIG SDK-HMAC-SHA256 (canonical path ends in "/"). */
export function fakeHuawei(c: FakeCreds): Promise<FakeProvider> {
  const zone = { id: 'ff8080827a', name: 'example.com.' };
  return serve('huaweicloud', (r, st) => {
    const deny = (msg: string) => new Reject(401, { code: 'APIGW.0301', message: msg }, msg);
    const m = /^SDK-HMAC-SHA256 Access=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(String(r.headers.authorization ?? ''));
    if (!m) throw deny('Incorrect IAM authentication information: authorization malformed');
    const [, access, signed, signature] = m as unknown as [string, string, string, string];
    if (access !== c.id) throw deny('Incorrect IAM authentication information: access key');
    const date = String(r.headers['x-sdk-date'] ?? '');
    const t = Date.parse(date.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    if (!Number.isFinite(t) || Math.abs(Date.now() - t) > 15 * 60_000) throw deny('Incorrect IAM authentication information: date');
    let path = r.url.pathname;
    if (!path.endsWith('/')) path += '/';
    const query = [...r.url.searchParams.entries()]
      .map(([k, v]) => `${pctEncode(k)}=${pctEncode(v)}`)
      .sort()
      .join('&');
    const headers = signed.split(';').map((h) => `${h}:${String(r.headers[h] ?? '').trim()}\n`).join('');
    const canonical = [r.method, path, query, headers, signed, sha256hex(r.body)].join('\n');
    const expect = hmacHex(c.secret, `SDK-HMAC-SHA256\n${date}\n${sha256hex(canonical)}`);
    if (!safeEq(expect, signature)) throw deny('Incorrect IAM authentication information: verify aksk signature fail');
    const p = r.url.pathname;
    // A record set: the records sharing `set` (its id).
    const view = (set: string) => {
      const recs = setRecords(st, set);
      const x = recs[0]!;
      return { id: set, name: `${x.name}.`, type: x.type, records: recs.map((y) => (y.type === 'TXT' ? quoted(y.value) : y.value)), ttl: x.ttl, zone_id: zone.id };
    };
    if (r.method === 'GET' && p === '/v2/zones') return { status: 200, body: { zones: r.url.searchParams.get('name') === zone.name ? [zone] : [] } };
    const rm = /^\/v2\/zones\/([^/]+)\/recordsets(?:\/([^/]+))?$/.exec(p);
    if (!rm || rm[1] !== zone.id) return { status: 404, body: { code: 'DNS.0101', message: 'The zone does not exist.' } };
    const setId = rm[2];
    if (r.method === 'GET' && !setId) {
      const name = r.url.searchParams.get('name');
      const type = r.url.searchParams.get('type');
      const sets = new Set([...st.records.values()].filter((x) => `${x.name}.` === name && x.type === type && x.set).map((x) => x.set!));
      return { status: 200, body: { recordsets: [...sets].map(view) } };
    }
    if (setId && setRecords(st, setId).length === 0) return { status: 404, body: { code: 'DNS.0312', message: 'The record set does not exist.' } };
    if (r.method === 'DELETE' && setId) {
      const out = view(setId);
      for (const x of setRecords(st, setId)) drop(st, x.id);
      return { status: 202, body: out };
    }
    const b = JSON.parse(r.body) as { name: string; type: string; records: string[]; ttl: number };
    const values = b.records.map((v) => (b.type === 'TXT' ? unquoted(v) : v));
    if (values.length === 0 || values.some((v) => v === null)) return { status: 400, body: { code: 'DNS.0308', message: 'The record value is invalid.' } };
    const name = b.name.replace(/\.$/, '');
    if (r.method === 'POST' && !setId) {
      if (setOf(st, name, b.type)) return { status: 400, body: { code: 'DNS.0312', message: 'The record set already exists.' } };
      const set = newId();
      replaceSet(st, set, name, b.type, values as string[], b.ttl);
      return { status: 202, body: view(set) };
    }
    if (r.method === 'PUT' && setId) {
      replaceSet(st, setId, name, b.type, values as string[], b.ttl);
      return { status: 202, body: view(setId) };
    }
    return { status: 400, body: { code: 'DNS.0303', message: 'bad request' } };
  }, { limited: { status: 429, body: { error_code: 'APIGW.0308', error_msg: 'The throttling threshold has been reached: policy user over ratelimit' } } });
}

/** Baidu Cloud DNS: BCE auth v1 (signing key from the prefix, then the canonical request). */
export function fakeBaidu(c: FakeCreds): Promise<FakeProvider> {
  return serve('baiducloud', (r, st) => {
    const deny = (msg: string) => new Reject(403, { code: 'AccessDenied', message: msg }, msg);
    const parts = String(r.headers.authorization ?? '').split('/');
    if (parts.length !== 6 || parts[0] !== 'bce-auth-v1') throw deny('authorization malformed');
    const [, ak, ts, exp, signedHeaders, sig] = parts as [string, string, string, string, string, string];
    if (ak !== c.id) throw deny('access key');
    if (Math.abs(Date.now() - Date.parse(ts)) > Number(exp) * 1000) throw deny('expired');
    const signingKey = hmacHex(c.secret, `bce-auth-v1/${ak}/${ts}/${exp}`);
    const canonHeaders = signedHeaders
      .split(';')
      .sort()
      .map((h) => `${pctEncode(h)}:${pctEncode(String(r.headers[h] ?? '').trim())}`)
      .join('\n');
    const canonical = [r.method, r.url.pathname.split('/').map(pctEncode).join('/'), r.url.search.slice(1), canonHeaders].join('\n');
    if (!safeEq(hmacHex(signingKey, canonical), sig)) throw deny('SignatureDoesNotMatch');
    const b = JSON.parse(r.body || '{}') as Record<string, string | number>;
    const full = (sub: unknown, zone: unknown) => (sub === '@' ? String(zone) : `${String(sub)}.${String(zone)}`);
    switch (r.url.pathname) {
      case '/v1/domain/resolve/list': {
        const recs = [...st.records.values()].filter((x) => x.name === String(b.domain) || x.name.endsWith(`.${String(b.domain)}`));
        return {
          status: 200,
          body: {
            totalCount: recs.length,
            result: recs.map((x) => ({
              recordId: Number(x.id),
              domain: x.name === b.domain ? '@' : x.name.slice(0, -String(b.domain).length - 1),
              rdtype: x.type,
              rdata: x.value,
              ttl: x.ttl,
              view: 'DEFAULT',
            })),
          },
        };
      }
      case '/v1/domain/resolve/add':
        upsert(st, full(b.domain, b.zoneName), String(b.rdType), String(b.rdata), Number(b.ttl));
        return { status: 200, body: '' };
      case '/v1/domain/resolve/edit':
        if (!st.records.has(String(b.recordId))) throw new Reject(400, { code: 'NoSuchRecord', message: 'record' }, 'record');
        upsert(st, full(b.domain, b.zoneName), String(b.rdType), String(b.rdata), Number(b.ttl), String(b.recordId));
        return { status: 200, body: '' };
      case '/v1/domain/resolve/delete': {
        const rec = st.records.get(String(b.recordId));
        if (!rec || !(rec.name === b.zoneName || rec.name.endsWith(`.${String(b.zoneName)}`))) throw new Reject(400, { code: 'NoSuchRecord', message: 'record' }, 'record');
        drop(st, rec.id);
        return { status: 200, body: '' };
      }
    }
    return { status: 404, body: { code: 'NotFound', message: r.url.pathname } };
  });
}

/** Porkbun v3: keys in the JSON body. */
export function fakePorkbun(c: FakeCreds): Promise<FakeProvider> {
  return serve('porkbun', (r, st) => {
    const b = JSON.parse(r.body || '{}') as Record<string, string>;
    if (b.apikey !== c.id || b.secretapikey !== c.secret) throw new Reject(400, { status: 'ERROR', message: 'Invalid API key. (002)' }, 'keys');
    const seg = r.url.pathname.split('/').filter(Boolean);
    if (seg[2] !== undefined && seg[2] !== 'example.com') return { status: 400, body: { status: 'ERROR', message: 'Invalid domain.' } };
    const full = (sub: string | undefined, root: string) => (sub ? `${sub}.${root}` : root);
    if (seg[0] === 'dns' && seg[1] === 'retrieveByNameType') {
      const name = full(seg[4], seg[2]!);
      const recs = [...st.records.values()].filter((x) => x.name === name && x.type === seg[3]);
      return { status: 200, body: { status: 'SUCCESS', records: recs.map((x) => ({ id: x.id, name: x.name, type: x.type, content: x.value, ttl: String(x.ttl) })) } };
    }
    if (seg[0] === 'dns' && seg[1] === 'create') {
      return { status: 200, body: { status: 'SUCCESS', id: Number(upsert(st, full(b.name, seg[2]!), b.type!, b.content!, Number(b.ttl)).id) } };
    }
    if (seg[0] === 'dns' && seg[1] === 'edit' && st.records.has(seg[3] ?? '')) {
      upsert(st, full(b.name, seg[2]!), b.type!, b.content!, Number(b.ttl), seg[3]);
      return { status: 200, body: { status: 'SUCCESS' } };
    }
    if (seg[0] === 'dns' && seg[1] === 'delete' && drop(st, seg[3] ?? '')) return { status: 200, body: { status: 'SUCCESS' } };
    return { status: 400, body: { status: 'ERROR', message: 'bad request' } };
  });
}

/** GoDaddy v1: `sso-key KEY:SECRET`; PUT replaces a name's records of a type, DELETE removes them. */
export function fakeGodaddy(c: FakeCreds): Promise<FakeProvider> {
  return serve('godaddy', (r, st) => {
    if (r.headers.authorization !== `sso-key ${c.id}:${c.secret}`) throw new Reject(401, { code: 'UNABLE_TO_AUTHENTICATE', message: 'Unable to authenticate' }, 'key');
    const m = /^\/v1\/domains\/([^/]+)\/records\/(A|AAAA|TXT)\/([^/]+)$/.exec(r.url.pathname);
    if (!m) return { status: 404, body: { code: 'NOT_FOUND', message: 'not found' } };
    const [, root, type] = m as unknown as [string, string, string];
    if (root !== 'example.com') return { status: 404, body: { code: 'UNKNOWN_DOMAIN', message: 'The given domain is not registered, or does not have a zone file' } };
    const sub = decodeURIComponent(m[3]!);
    const name = sub === '@' ? root : `${sub}.${root}`;
    const existing = st.all(name, type);
    if (r.method === 'GET') return { status: 200, body: existing.map((x) => ({ data: x.value, name: sub, ttl: x.ttl, type })) };
    if (r.method === 'DELETE') {
      if (!existing.length) return { status: 404, body: { code: 'NOT_FOUND', message: 'no records' } };
      for (const x of existing) drop(st, x.id);
      return { status: 204, body: '' };
    }
    const b = JSON.parse(r.body) as Array<{ data: string; ttl: number }>;
    if (b.some((x) => x.ttl < 600)) return { status: 422, body: { code: 'INVALID_BODY', message: 'ttl' } };
    replaceSet(st, existing[0]?.set ?? newId(), name, type, b.map((x) => x.data), b[0]!.ttl);
    return { status: 200, body: '' };
  });
}

/** DuckDNS: `update?domains=&token=&ip=` answers OK/KO. */
export function fakeDuckdns(c: FakeCreds): Promise<FakeProvider> {
  return serve('duckdns', (r, st) => {
    const q = r.url.searchParams;
    if (q.get('token') !== c.secret) throw new Reject(200, 'KO', 'token');
    const name = `${q.get('domains')}.duckdns.org`;
    if (q.has('txt')) {
      // One TXT record per domain; clear=true empties it.
      const old = st.find(name, 'TXT');
      const txt = q.get('txt')!;
      if (q.get('clear') === 'true') {
        if (old) drop(st, old.id);
        return { status: 200, body: `OK\n\n${old ? 'UPDATED' : 'NOCHANGE'}` };
      }
      if (old?.value !== txt) upsert(st, name, 'TXT', txt, 60, old?.id);
      return { status: 200, body: `OK\n${txt}\n${old?.value === txt ? 'NOCHANGE' : 'UPDATED'}` };
    }
    const out: string[] = [];
    for (const [param, type] of [['ip', 'A'], ['ipv6', 'AAAA']] as const) {
      const v = q.get(param);
      if (!v) continue;
      const old = st.find(name, type);
      out.push(old?.value === v ? 'NOCHANGE' : 'UPDATED');
      upsert(st, name, type, v, 60, old?.id);
    }
    return { status: 200, body: `OK\n${q.get('ip') ?? ''}\n${q.get('ipv6') ?? ''}\n${out.join('')}` };
  });
}

/** deSEC: `Token` auth, RRsets by subname/type (TXT records as quoted character-strings). */
export function fakeDesec(c: FakeCreds): Promise<FakeProvider> {
  return serve('desec', (r, st) => {
    if (r.headers.authorization !== `Token ${c.secret}`) throw new Reject(401, { detail: 'Invalid token.' }, 'token');
    const m = /^\/domains\/([^/]+)\/rrsets\/(?:([^/]+)\/(A|AAAA|TXT)\/)?$/.exec(r.url.pathname);
    if (!m || m[1] !== 'example.com') return { status: 404, body: { detail: 'Not found.' } };
    const root = m[1]!;
    const data = (type: string, records: string[]) => records.map((v) => (type === 'TXT' ? unquoted(v) : v));
    const invalid = { status: 400, body: { records: ['Record content malformed.'] } };
    const show = (x: FakeRecord) => (x.type === 'TXT' ? quoted(x.value) : x.value);
    if (m[3]) {
      const type = m[3];
      const name = m[2] === '@' ? root : `${m[2]}.${root}`;
      const recs = st.all(name, type);
      if (!recs.length) return { status: 404, body: { detail: 'Not found.' } };
      if (r.method === 'GET') return { status: 200, body: { subname: m[2] === '@' ? '' : m[2], type, records: recs.map(show), ttl: recs[0]!.ttl } };
      if (r.method === 'DELETE') {
        for (const x of recs) drop(st, x.id);
        return { status: 204, body: '' };
      }
      const b = JSON.parse(r.body) as { records: string[]; ttl?: number };
      const values = data(type, b.records);
      if (values.some((v) => v === null)) return invalid;
      const ttl = b.ttl ?? recs[0]!.ttl;
      if (ttl < 3600) return { status: 400, body: { ttl: ['Ensure this value is greater than or equal to 3600.'] } };
      // An empty record list deletes the RRset.
      replaceSet(st, recs[0]!.set ?? newId(), name, type, values as string[], ttl);
      return values.length ? { status: 200, body: { records: b.records, ttl } } : { status: 204, body: '' };
    }
    const b = JSON.parse(r.body) as { subname: string; type: string; records: string[]; ttl: number };
    if (b.ttl < 3600) return { status: 400, body: { ttl: ['Ensure this value is greater than or equal to 3600.'] } };
    const values = data(b.type, b.records);
    if (!values.length || values.some((v) => v === null)) return invalid;
    const name = b.subname ? `${b.subname}.${root}` : root;
    if (st.find(name, b.type)) return { status: 400, body: { non_field_errors: ['Another RRset with the same subdomain and type exists for this domain.'] } };
    replaceSet(st, newId(), name, b.type, values as string[], b.ttl);
    return { status: 201, body: b };
  });
}

/** NameSilo: `key` in the query, JSON replies with code 300 on success. */
export function fakeNamesilo(c: FakeCreds): Promise<FakeProvider> {
  return serve('namesilo', (r, st) => {
    const q = r.url.searchParams;
    if (q.get('key') !== c.secret) throw new Reject(200, { request: {}, reply: { code: 110, detail: 'Invalid API Key' } }, 'key');
    const root = q.get('domain') ?? '';
    if (root !== 'example.com') return { status: 200, body: { request: {}, reply: { code: 200, detail: 'Domain is not active, or does not belong to this user' } } };
    const name = (h: string | null) => (h ? `${h}.${root}` : root);
    const reply = (o: object) => ({ status: 200, body: { request: { operation: r.url.pathname.slice(5) }, reply: { code: 300, detail: 'success', ...o } } });
    switch (r.url.pathname) {
      case '/api/dnsListRecords':
        return reply({
          resource_record: [...st.records.values()]
            .filter((x) => x.name === root || x.name.endsWith(`.${root}`))
            .map((x) => ({ record_id: x.id, type: x.type, host: x.name, value: x.value, ttl: String(x.ttl) })),
        });
      case '/api/dnsAddRecord':
        return reply({ record_id: upsert(st, name(q.get('rrhost')), q.get('rrtype')!, q.get('rrvalue')!, Number(q.get('rrttl'))).id });
      case '/api/dnsDeleteRecord': {
        const rec = st.records.get(q.get('rrid') ?? '');
        if (!rec || !(rec.name === root || rec.name.endsWith(`.${root}`))) return { status: 200, body: { reply: { code: 280, detail: 'no such record' } } };
        drop(st, rec.id);
        return reply({});
      }
      case '/api/dnsUpdateRecord': {
        const old = st.records.get(q.get('rrid') ?? '');
        if (!old) return { status: 200, body: { reply: { code: 280, detail: 'no such record' } } };
        upsert(st, name(q.get('rrhost')), old.type, q.get('rrvalue')!, Number(q.get('rrttl')), old.id);
        return reply({ record_id: old.id });
      }
    }
    return { status: 404, body: 'not found' };
  });
}

/** Vercel: Bearer token, records per domain. */
export function fakeVercel(c: FakeCreds): Promise<FakeProvider> {
  return serve('vercel', (r, st) => {
    if (r.headers.authorization !== `Bearer ${c.secret}`) throw new Reject(403, { error: { code: 'forbidden', message: 'Not authorized' } }, 'token');
    if (c.id && r.url.searchParams.get('teamId') !== c.id) throw new Reject(403, { error: { code: 'forbidden', message: 'team' } }, 'team');
    const list = /^\/v4\/domains\/([^/]+)\/records$/.exec(r.url.pathname);
    if (list && r.method === 'GET') {
      const root = list[1]!;
      if (root !== 'example.com') return { status: 404, body: { error: { code: 'not_found', message: 'The domain was not found' } } };
      return {
        status: 200,
        body: {
          records: [...st.records.values()]
            .filter((x) => x.name === root || x.name.endsWith(`.${root}`))
            .map((x) => ({ id: x.id, name: x.name === root ? '' : x.name.slice(0, -root.length - 1), type: x.type, value: x.value, ttl: x.ttl })),
        },
      };
    }
    const add = /^\/v2\/domains\/([^/]+)\/records$/.exec(r.url.pathname);
    if (add && r.method === 'POST') {
      const b = JSON.parse(r.body) as { name: string; type: string; value: string; ttl: number };
      return { status: 200, body: { uid: upsert(st, b.name ? `${b.name}.${add[1]}` : add[1]!, b.type, b.value, b.ttl).id } };
    }
    const del = /^\/v2\/domains\/([^/]+)\/records\/([^/]+)$/.exec(r.url.pathname);
    if (del && r.method === 'DELETE') {
      const rec = st.records.get(del[2]!);
      if (rec && (rec.name === del[1] || rec.name.endsWith(`.${del[1]}`)) && drop(st, rec.id)) return { status: 200, body: {} };
    }
    const edit = /^\/v1\/domains\/records\/([^/]+)$/.exec(r.url.pathname);
    if (edit && r.method === 'PATCH' && st.records.has(edit[1]!)) {
      const old = st.records.get(edit[1]!)!;
      const b = JSON.parse(r.body) as { value: string; ttl: number };
      upsert(st, old.name, old.type, b.value, b.ttl, old.id);
      return { status: 200, body: { id: old.id } };
    }
    return { status: 404, body: { error: { code: 'not_found', message: r.url.pathname } } };
  });
}

/** Namecheap dynamic DNS: `update?host=&domain=&password=&ip=`, XML answers. */
export function fakeNamecheap(c: FakeCreds): Promise<FakeProvider> {
  return serve('namecheap', (r, st) => {
    const q = r.url.searchParams;
    const xml = (errs: string[]) =>
      `<?xml version="1.0"?><interface-response><Command>SETDNSHOST</Command><ErrCount>${errs.length}</ErrCount>${errs.length ? `<errors><Err1>${errs[0]}</Err1></errors>` : ''}<Done>true</Done></interface-response>`;
    if (q.get('password') !== c.secret) throw new Reject(200, xml(['Passwords do not match']), 'password');
    const host = q.get('host');
    const name = host === '@' ? q.get('domain')! : `${host}.${q.get('domain')}`;
    upsert(st, name, 'A', q.get('ip')!, 60, st.find(name, 'A')?.id);
    return { status: 200, body: xml([]), type: 'text/html' };
  });
}

/** A plain HTTP server that answers the current addresses, for URL IP sources. */
export interface FakeIpServer {
  url: string;
  ipv4: string;
  ipv6: string;
  hits: number;
  close(): Promise<void>;
}
export async function fakeIpServer(ipv4: string, ipv6: string): Promise<FakeIpServer> {
  const st: FakeIpServer = { url: '', ipv4, ipv6, hits: 0, close: () => new Promise((r) => server.close(() => r())) };
  const server = createServer((req, res) => {
    st.hits++;
    res.writeHead(200, { 'content-type': 'text/plain' });
    if (req.url?.startsWith('/v6')) res.end(`Your IP is ${st.ipv6}\n`);
    else if (req.url?.startsWith('/json')) res.end(JSON.stringify({ query: st.ipv4, other: '10.0.0.1' }));
    else res.end(`current IP: ${st.ipv4} from somewhere\n`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  st.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return st;
}

/** Records every request (callback and webhook receivers). */
export interface Receiver {
  url: string;
  calls: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  answer: { status: number; body: string };
  close(): Promise<void>;
}
export async function receiver(): Promise<Receiver> {
  const st: Receiver = { url: '', calls: [], answer: { status: 200, body: 'ok' }, close: () => new Promise((r) => server.close(() => r())) };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      st.calls.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(st.answer.status, { 'content-type': 'text/plain' });
      res.end(st.answer.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  st.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return st;
}

/** Polls until `check` returns a value (not undefined/false); fails after `ms` with the last value seen. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { fakeDigitalocean } from './fakes/digitalocean.js';
export { fakeDyndns, fakeHe, fakeNoip } from './fakes/dyndns.js';
export { fakeDynu } from './fakes/dynu.js';
export { fakeDynv6 } from './fakes/dynv6.js';
export { DNSPOD_TOKEN } from './fakes/dnspodtoken.js';
export { fakeGandi } from './fakes/gandi.js';
export { fakeHetzner } from './fakes/hetzner.js';
export { fakeLinode } from './fakes/linode.js';
export { fakeAzure } from './fakes/azure.js';
export { fakeOvh } from './fakes/ovh.js';
export { fakeRoute53 } from './fakes/route53.js';
export { fakeAliesa } from './fakes/aliesa.js';
export { fakeDnsla } from './fakes/dnsla.js';
export { fakeEdgeone } from './fakes/edgeone.js';
export { fakeRainyun, RAINYUN_DOMAIN_ID } from './fakes/rainyun.js';
export { fakeEranet, fakeNowcn } from './fakes/todaynic.js';
export { fakeVolcengine } from './fakes/volcengine.js';
export { fakeCloudns } from './fakes/cloudns.js';
export { fakeDynadot } from './fakes/dynadot.js';
export { fakeGcore } from './fakes/gcore.js';
export { fakeNamecom } from './fakes/namecom.js';
export { fakeNs1 } from './fakes/ns1.js';
export { fakeSpaceship } from './fakes/spaceship.js';
export { fakeBunny } from './fakes/bunny.js';
export { fakeDnsimple } from './fakes/dnsimple.js';
export { fakeHetznercloud } from './fakes/hetznercloud.js';
export { fakeNetlify } from './fakes/netlify.js';
export { fakeNjalla } from './fakes/njalla.js';
export { fakePowerdns } from './fakes/powerdns.js';
export { fakeScaleway } from './fakes/scaleway.js';
export { fakeTechnitium } from './fakes/technitium.js';
export { fakeVultr } from './fakes/vultr.js';
export { fakeDnsmadeeasy } from './fakes/dnsmadeeasy.js';
export { fakeIonos } from './fakes/ionos.js';
export { fakeLuadns } from './fakes/luadns.js';
export { fakeMythicbeasts } from './fakes/mythicbeasts.js';
