/** TLS certificates: the certificate store and the certificates rules carry (web services, later WebDAV and FTPS). */
import { defineMessages } from './define.js';

export const certificatesMessages = defineMessages(
  {
    statusCertNeeded: 'HTTPS 至少需要一个证书',
    statusCertUnreadable: '无法读取证书 {n}：{detail}',
    certInRule: '证书 {n}：{detail}',
    certBadPem: '证书不是有效的 PEM：{detail}',
    certBadKey: '私钥不是有效的 PEM：{detail}',
    certKeyMismatch: '私钥与证书不匹配',
    certExpired: '证书 {n}（{names}）已于 {date} 过期',
    certBadName: '证书名称只能由 1-64 个字母、数字、点、下划线或连字符组成',
    certListenerFailed: '证书 {name} 的变更未能通知到使用者：{detail}',
    certStoreMissing: '证书 {n}：证书库中还没有名为 {name} 的证书',
    certWaiting: '等待证书 {name}：证书库中还没有它（正在申请或读取），一旦存入即开始服务',
    certSwapped: '证书 {name} 已更新，新连接使用新证书',
    certAutoOrdering: '正在为 {names} 自动申请证书；签发前使用临时的自签名证书',
    certAutoFailed: '自动证书申请失败（仍使用当前证书）：{detail}',
    certAutoNoNames: '自动证书需要域名：请在子规则或证书的域名中填写完整域名',
  },
  {
    statusCertNeeded: 'https needs at least one certificate',
    statusCertUnreadable: 'certificate {n} cannot be read: {detail}',
    certInRule: 'certificate {n}: {detail}',
    certBadPem: 'the certificate is not valid PEM: {detail}',
    certBadKey: 'the private key is not valid PEM: {detail}',
    certKeyMismatch: 'the private key does not belong to the certificate',
    certExpired: 'certificate {n} ({names}) expired on {date}',
    certBadName: 'a certificate name is 1-64 letters, digits, dots, underscores or hyphens',
    certListenerFailed: 'a user of certificate {name} was not told of its change: {detail}',
    certStoreMissing: 'certificate {n}: the store has no certificate named {name} yet',
    certWaiting: 'waiting for certificate {name}: not in the store yet (being ordered or read); serving starts the moment it is stored',
    certSwapped: 'certificate {name} was replaced: new connections get the new one',
    certAutoOrdering: 'a certificate for {names} is being ordered; a temporary self-signed one answers until it is issued',
    certAutoFailed: 'the automatic certificate could not be ordered (the current one stays in use): {detail}',
    certAutoNoNames: 'an automatic certificate needs names: give full domain names in the sub rules or in the certificate\'s names',
  },
);
