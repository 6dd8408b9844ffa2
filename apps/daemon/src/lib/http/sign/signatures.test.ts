/**
 * The request signers against the worked examples in the providers' own documentation; where no
 * published example was at hand, against a known answer computed by an independent implementation
 * (botocore 1.43, the AWS SDK for Python; a Python transcription of the provider's documented steps),
 * as each test says.
 */
import { describe, expect, it } from 'vitest';
import { aliSign } from './acsrpc.js';
import { dnsMadeEasyHeaders } from './dnsmadeeasy.js';
import { ovhSignature } from './ovh.js';
import { AWS_V4, signV4, VOLCENGINE_V4 } from './sigv4.js';
import { tc3Authorization } from './tc3.js';

describe('provider signatures match the documented examples', () => {
  it('Tencent Cloud TC3-HMAC-SHA256 (API 3.0 signing guide, DescribeInstances example)', () => {
    const auth = tc3Authorization({
      secretId: 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE',
      secretKey: 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE',
      service: 'cvm',
      host: 'cvm.tencentcloudapi.com',
      contentType: 'application/json; charset=utf-8',
      payload: String.raw`{"Limit": 1, "Filters": [{"Values": ["\u672a\u547d\u540d"], "Name": "instance-name"}]}`,
      timestamp: 1551113065,
    });
    expect(auth).toBe(
      'TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, ' +
        'Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168',
    );
  });

  it('Alibaba Cloud RPC signature v1.0 (AliDNS signing example)', () => {
    const sig = aliSign(
      {
        Format: 'XML',
        AccessKeyId: 'testid',
        Action: 'DescribeDomainRecords',
        SignatureMethod: 'HMAC-SHA1',
        DomainName: 'example.com',
        SignatureNonce: 'f59ed6a9-83fc-473b-9cc6-99c95df3856e',
        SignatureVersion: '1.0',
        Version: '2015-01-09',
        Timestamp: '2016-03-24T16:41:54Z',
      },
      'testsecret',
    );
    expect(sig).toBe('uRpHwaSEt3J+6KQD//svCh/x+pI=');
  });

  const AWS_EXAMPLE = { accessKey: 'AKIDEXAMPLE', secretKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', region: 'us-east-1', date: new Date('2015-08-30T12:36:00Z'), body: '' };

  it('AWS Signature Version 4 (the IAM ListUsers example of the SigV4 guide)', () => {
    const h = signV4(AWS_V4, {
      ...AWS_EXAMPLE,
      method: 'GET',
      url: new URL('https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08'),
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      service: 'iam',
    });
    expect(h['x-amz-date']).toBe('20150830T123600Z');
    expect(h.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, ' +
        'Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7',
    );
  });

  it('AWS Signature Version 4 (the get-vanilla case of the SigV4 test suite)', () => {
    const h = signV4(AWS_V4, { ...AWS_EXAMPLE, method: 'GET', url: new URL('https://example.amazonaws.com/'), headers: {}, service: 'service' });
    expect(h.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, ' +
        'Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  it('AWS Signature Version 4 of Route 53 calls (known answers from botocore)', () => {
    const keys = { accessKey: 'AKIAIOSFODNN7EXAMPLE', secretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1', service: 'route53', date: new Date('2026-03-01T08:00:00Z') };
    const body =
      '<?xml version="1.0" encoding="UTF-8"?><ChangeResourceRecordSetsRequest xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><ChangeBatch><Changes><Change>' +
      '<Action>UPSERT</Action><ResourceRecordSet><Name>home.example.com.</Name><Type>A</Type><TTL>300</TTL><ResourceRecords><ResourceRecord><Value>192.0.2.10</Value>' +
      '</ResourceRecord></ResourceRecords></ResourceRecordSet></Change></Changes></ChangeBatch></ChangeResourceRecordSetsRequest>';
    const post = signV4(AWS_V4, { ...keys, method: 'POST', url: new URL('https://route53.amazonaws.com/2013-04-01/hostedzone/Z0123456789ABC/rrset/'), headers: { 'content-type': 'application/xml' }, body });
    expect(post.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260301/us-east-1/route53/aws4_request, SignedHeaders=content-type;host;x-amz-date, ' +
        'Signature=da2801c9543701c5a0f372cf7002afe2b4a2d66a349f7f34b0f8aa1a51ef2978',
    );
    const get = signV4(AWS_V4, { ...keys, method: 'GET', url: new URL('https://route53.amazonaws.com/2013-04-01/hostedzonesbyname?dnsname=example.com&maxitems=1'), headers: {}, body: '' });
    expect(get.authorization).toMatch(/SignedHeaders=host;x-amz-date, Signature=21a4c31a7e5dab4bc11436ed11f97a66f5086d7ef46934ef870cede71d926c1e$/);
  });

  it('Volcengine HMAC-SHA256 (known answer from a Python transcription of its documented steps)', () => {
    const body = '{"ZID":123,"Host":"home","Type":"A","Value":"192.0.2.10","TTL":600,"Line":"default"}';
    const sha = '11460f010f8560e5994b7da4cddc6b1a762c5ef7a221120c23fed153af6c3faa';
    const h = signV4(VOLCENGINE_V4, {
      method: 'POST',
      url: new URL('https://open.volcengineapi.com/?Action=CreateRecord&Version=2018-08-01'),
      headers: { 'content-type': 'application/json', 'x-content-sha256': sha },
      body,
      accessKey: 'AKLTexampleaccesskey',
      secretKey: 'WkdGa1pXeGxkR1V0YzJWamNtVjA=',
      region: 'cn-north-1',
      service: 'DNS',
      date: new Date('2026-03-01T08:00:00Z'),
    });
    expect(h['x-date']).toBe('20260301T080000Z');
    expect(h.authorization).toBe(
      'HMAC-SHA256 Credential=AKLTexampleaccesskey/20260301/cn-north-1/DNS/request, SignedHeaders=content-type;host;x-content-sha256;x-date, ' +
        'Signature=d56e24fd81305b6724bef196d2d22ab1b0bdae698d814c8598e55af78a71980b',
    );
  });

  it('OVHcloud $1$ signature (known answer from its documented formula, hashed with Python hashlib)', () => {
    expect(
      ovhSignature({
        appSecret: 'EXEgWIz07P0HYwtQDs7cNIqCiQaWSuHF',
        consumerKey: 'MtSwSrPpNjqfVSmJhLbPyr2i45lSwPU1',
        method: 'POST',
        url: 'https://eu.api.ovh.com/1.0/domain/zone/example.com/record',
        body: '{"fieldType":"A","subDomain":"home","target":"192.0.2.10","ttl":60}',
        timestamp: 1772352000,
      }),
    ).toBe('$1$40d3c5b93dde18564935c7dd7499461d1a969193');
  });

  it('DNS Made Easy HMAC-SHA1 of the request date (known answer from its documented formula, hashed with Python hmac)', () => {
    expect(dnsMadeEasyHeaders({ apiKey: '1c1a3c91-4770-4ce7-96f4-54c0eb0e457a', secretKey: 'c9b5625f-9834-4ff8-baba-4ed5f32cae55', date: new Date('2011-02-12T20:59:04Z') })).toEqual({
      'x-dnsme-apikey': '1c1a3c91-4770-4ce7-96f4-54c0eb0e457a',
      'x-dnsme-requestdate': 'Sat, 12 Feb 2011 20:59:04 GMT',
      'x-dnsme-hmac': 'b3502e6116a324f3cf4a8ed693d78bcee8d8fe3c',
    });
  });
});
