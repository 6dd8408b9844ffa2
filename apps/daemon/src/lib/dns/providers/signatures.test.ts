/** The signers against the worked examples in the providers' own documentation. */
import { describe, expect, it } from 'vitest';
import { aliSign } from './alidns.js';
import { tc3Authorization } from './dnspod.js';

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
});
