/** HTTP calls made for the user (lib/http, lib/webhook): their failures, webhook results, and the shared field checks. */
import { defineMessages } from './define.js';

export const httpMessages = defineMessages(
  {
    invalidUrl: '不是有效的 http(s) 地址',
    invalidHostPort: '格式应为 主机:端口',
    invalidHeaderLine: '请求头格式应为 名称: 值',
    invalidJsonBody: '请求体不是有效的 JSON',
    httpTimeout: '{seconds} 秒后超时：{url}',
    httpRequestFailed: '请求失败：{detail}',
    httpStatus: 'HTTP {status}',
    httpNotJson: 'HTTP {status}：回答不是 JSON：{detail}',
    httpPinMismatch: '证书指纹与设置的不符（对方出示 {got}）',
    httpTooLarge: '回答超过 {mb} MB',
    webhookOk: '成功（HTTP {status}）',
    webhookNoText: '回答中没有“{text}”',
  },
  {
    invalidUrl: 'is not a valid http(s) URL',
    invalidHostPort: 'must be host:port',
    invalidHeaderLine: 'headers must be "Name: value"',
    invalidJsonBody: 'the body is not valid JSON',
    httpTimeout: 'timeout after {seconds}s: {url}',
    httpRequestFailed: 'request failed: {detail}',
    httpStatus: 'HTTP {status}',
    httpNotJson: 'HTTP {status}: not JSON: {detail}',
    httpPinMismatch: 'the certificate does not match the pinned fingerprint (it is {got})',
    httpTooLarge: 'the answer is larger than {mb} MB',
    webhookOk: 'ok (HTTP {status})',
    webhookNoText: 'the answer does not contain "{text}"',
  },
);
