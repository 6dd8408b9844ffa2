/** Tencent Cloud DNS: Tencent Cloud API 3.0 (service dnspod, TC3-HMAC-SHA256), the API DNSPod's accounts use too; `?RecordLine=` per domain. */
import { defineProvider, keyPair } from './define.js';
import { dnspod } from './dnspod.js';

export const tencentcloud = defineProvider({ ...dnspod, label: 'dnsNameTencentcloud', docs: 'https://cloud.tencent.com/document/api/1427/56180', fields: keyPair('dnsCredSecretId', 'dnsCredSecretKey') });
