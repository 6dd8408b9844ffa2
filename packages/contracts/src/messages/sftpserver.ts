/** SFTP server (module `sftpserver`) and the storage users' public keys. */
import { defineMessages } from './define.js';

export const sftpserverMessages = defineMessages(
  {
    sftpNoLoginMethod: '至少要允许一种登录方式（密码或公钥）',
    sftpListening: '正在监听 {address}（SFTP）',
    sftpLoggedIn: '{client} 以 {user} 登录（{method}）',
    sftpLoginFailed: '{client} 登录失败：{account}（{method}）',
    sftpTooManyConnections: '{client} 被拒绝：连接数已达上限 {max}',
    sftpTooManyForUser: '{client} 被拒绝：用户 {user} 的连接数已达上限 {max}',
    sftpIdleClosed: '{client}（{user}）空闲超时，连接已关闭',
    sftpRefused: '{client}（{user}）请求 {what} 被拒绝：只提供 SFTP',
    sftpAccess: '{client} {user} {op} {path} → {result}，{bytes} B',
    sftpHostKeyMade: '已生成 SFTP 主机密钥 {type} {fingerprint}',
    sftpHostKeyUnreadable: 'SFTP 主机密钥 {file} 无法读取：{detail}',
    sshKeyOptions: '公钥行前不能带选项（如 from=、command=），请只粘贴“类型 密钥 注释”',
    sshKeyType: '不支持的公钥类型：支持 ssh-ed25519、ecdsa-sha2-nistp256/384/521、ssh-rsa',
    sshKeyBlob: '公钥内容无效（base64 损坏或与类型不符）',
    sshKeyTooMany: '每个用户最多 64 个公钥',
  },
  {
    sftpNoLoginMethod: 'allow at least one way to log in (password or public key)',
    sftpListening: 'listening on {address} (SFTP)',
    sftpLoggedIn: '{client} logged in as {user} ({method})',
    sftpLoginFailed: 'login failed from {client}: {account} ({method})',
    sftpTooManyConnections: '{client} refused: {max} connections already open',
    sftpTooManyForUser: '{client} refused: user {user} already has {max} connections',
    sftpIdleClosed: '{client} ({user}) was idle too long and was disconnected',
    sftpRefused: '{client} ({user}) asked for {what}, refused: only SFTP is offered',
    sftpAccess: '{client} {user} {op} {path} → {result}, {bytes} B',
    sftpHostKeyMade: 'SFTP host key made: {type} {fingerprint}',
    sftpHostKeyUnreadable: 'SFTP host key {file} cannot be read: {detail}',
    sshKeyOptions: 'a key line cannot start with options (from=, command=…): paste only "type key comment"',
    sshKeyType: 'unsupported key type: ssh-ed25519, ecdsa-sha2-nistp256/384/521 and ssh-rsa are',
    sshKeyBlob: 'the key is not valid (broken base64, or not of its type)',
    sshKeyTooMany: 'at most 64 public keys per user',
  },
);
