/** Port forwarding. */
import { defineMessages } from './define.js';

export const portforwardMessages = defineMessages(
  {
    pfForwardTypeRequired: '至少选择一种转发类型（不可重复）',
    pfPortListSyntax: '端口格式错误，应为 80,443,1000-1010 这样的形式',
    pfPortRangeReversed: '端口范围的起始端口不能大于结束端口',
    pfPortListDuplicate: '端口重复',
    pfPortListTooLong: '端口数量过多，每条规则最多 4096 个',
    pfPortCountMismatch: '目标端口数量必须与监听端口数量相同，或只填一个端口',
    pfInvalidHost: '不是有效的 IP 地址或域名',
    pfListenFamilyMismatch: '监听地址与转发类型的 IP 版本不一致',
    pfTlsNeedsTcp: 'TLS 监听需要 TCP 转发类型',
    pfInvalidPemCert: '不是 PEM 格式的证书',
    pfInvalidPemKey: '不是 PEM 格式的私钥',
    pfTlsPairInvalid: '证书与私钥无法使用：{detail}',
  },
  {
    pfForwardTypeRequired: 'choose at least one forwarding type (each once)',
    pfPortListSyntax: 'invalid port list, write it like 80,443,1000-1010',
    pfPortRangeReversed: 'a port range must not start above its end',
    pfPortListDuplicate: 'a port appears more than once',
    pfPortListTooLong: 'too many ports, at most 4096 per rule',
    pfPortCountMismatch: 'target ports must be as many as the listening ports, or a single port',
    pfInvalidHost: 'is not a valid IP address or domain name',
    pfListenFamilyMismatch: 'the listen address does not match the IP version of the forwarding types',
    pfTlsNeedsTcp: 'TLS on the listener needs a TCP forwarding type',
    pfInvalidPemCert: 'is not a PEM certificate',
    pfInvalidPemKey: 'is not a PEM private key',
    pfTlsPairInvalid: 'The certificate and key cannot be used together: {detail}',
  },
);
