/**
 * Messages the daemon sends back, and the zod message keys schemas use, in both languages.
 * The console reuses them so that a message reads the same wherever it is produced.
 */
import { z } from 'zod';

export const LANGS = ['zh_CN', 'en_US'] as const;
export type Lang = (typeof LANGS)[number];
export const DEFAULT_LANG: Lang = 'zh_CN';

/** Header the console sends with every call so the daemon answers in the user's language. */
export const LANG_HEADER = 'lucky-lang';
/** Header that carries the session token. */
export const TOKEN_HEADER = 'lucky-admin-token';

export function parseLang(value: unknown): Lang {
  if (typeof value !== 'string') return DEFAULT_LANG;
  if ((LANGS as readonly string[]).includes(value)) return value as Lang;
  // Accept-Language style values: "en", "en-US,en;q=0.9".
  return /^en\b/i.test(value) ? 'en_US' : DEFAULT_LANG;
}

const zh = {
  sessionInvalid: '登录已失效，请重新登录',
  accountOrPasswordEmpty: '账号或密码不能为空',
  loginSuccess: '登录成功',
  loginFailed: '登录失败',
  loginLocked: '登录失败次数过多，请在 {seconds} 秒后再试',
  logoutSuccess: '已注销登录',
  wanAccessDenied: '后台已禁止外网访问：来源地址 {ip} 不是内网地址。可在设置中开启外网访问。',
  invalidJson: '请求内容不是有效的 JSON',
  bodyTooLarge: '请求内容过大',
  validation: '参数 {field} 错误：{detail}',
  validationRoot: '参数错误：{detail}',
  notFound: '接口不存在',
  moduleDisabled: '模块 {module} 已停用',
  notAvailable: '此功能尚未提供',
  internal: '内部错误，详情见程序日志',
  portInUse: '端口 {port} 已被占用',
  listenFailed: '无法监听 {address}：{detail}',
  ruleNotFound: '规则不存在',
  interfaceNotFound: '网卡 {name} 不存在',
  invalidRegex: '正则表达式无效：{detail}',
  restarting: '程序正在重启',
  gcDone: '内存回收完成',
  saved: '保存成功',
  cannotBeEmpty: '不能为空',
  invalidIp: '不是有效的 IP 地址',
  invalidIpv4: '不是有效的 IPv4 地址',
  invalidIpv6: '不是有效的 IPv6 地址',
  invalidMac: '不是有效的 MAC 地址',
  invalidPort: '端口必须在 1-65535 之间',
  duplicateName: '名称已存在',
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
  ddnsInvalidRegex: '正则表达式无效',
  ddnsForceSyncRange: '强制同步间隔必须在 60-3600 秒之间',
  ddnsHttpTimeoutRange: 'HTTP 客户端超时必须在 3-60 秒之间',
  ddnsIntervalRange: '检测间隔必须在 30-3600 秒之间',
  ddnsFirstDelayRange: '首次检测延迟必须在 0-3600 秒之间',
  ddnsInvalidDomain: '不是有效的域名',
  ddnsInvalidBase64: '不是有效的 Base64 字符串',
  ddnsNoIpv6: '此 DNS 服务商不支持 IPv6',
  ddnsOdhcpdIpv6Only: 'ODHCPD 文件只能用于 IPv6',
  ddnsInvalidUrl: '不是有效的 http(s) 地址',
  ddnsInvalidHostPort: '格式应为 主机:端口',
  ddnsInvalidHeader: '请求头格式应为 名称: 值',
  ddnsInvalidJsonBody: '请求体不是有效的 JSON',
  ddnsSecretMissing: '参数 credentials.secret 错误：不能为空',
  invalidDomain: '不是有效的域名',
  invalidCidr: '不是有效的 IP 或网段',
  invalidHeader: '不是有效的头部名称或值',
  invalidBackend: '不是有效的后端地址（http:// 或 https://）',
  invalidUser: '用户名不能包含冒号',
  passwordRequired: '用户 {user} 的密码不能为空',
  ddnsTaskDisabled: '任务已停用',
  ddnsNotRunning: '动态域名模块未运行',
  ddnsSyncDone: '同步完成',
  ddnsSyncRunning: '正在同步',
  pfTlsPairInvalid: '证书与私钥无法使用：{detail}',
  // security management and system functions
  accessDenied: '地址 {ip} 无权访问后台',
  invalidSafeUrl: '只能包含字母、数字、- 和 _，最长 64 个字符',
  invalidTotp: '验证码是 6 位数字',
  twoFACodeWrong: '两步验证码不正确',
  twoFANotPending: '请先获取两步验证密钥并用验证器扫描',
  twoFAAlreadyOn: '两步验证已开启',
  twoFANotOn: '两步验证未开启',
  passwordWrong: '密码不正确',
  accessWouldLockOut: '此设置会让当前地址 {ip} 无法访问后台，未保存',
  tokenNotFound: '令牌不存在',
  tokenReadOnly: '此 API 令牌无权执行此操作',
  sessionNotFound: '会话不存在',
  backupInvalid: '备份文件无效：{detail}',
  restoreKeyUnknown: '没有待确认的恢复，或已过期',
  restoreDone: '配置已恢复',
  uploadMissing: '没有收到上传的文件',
  uploadTooLarge: '上传的文件过大（最大 {max}）',
  updateInvalid: '更新包无效：{detail}',
  updateNone: '没有待安装的更新',
  updateApplied: '更新已安装，程序正在重启',
  updateCancelled: '已取消更新',
  serviceUnavailable: '此系统没有 systemd，无法安装为服务',
  serviceInstalled: '已安装并启用 systemd 服务 {unit}',
  serviceRemoved: '已停用并删除 systemd 服务 {unit}',
  serviceStatus: '服务状态：{status}',
  v2lUnsupported: '不支持 v2l：该功能在本程序中没有用途',
  // Rule statuses written by the engines (shown in the rule lists).
  statusPortInUse: '端口 {port} 已被占用（{address}）',
  statusNoPermission: '没有权限监听 {address}（1024 以下的端口需要 root 或 CAP_NET_BIND_SERVICE）',
  statusAddressUnavailable: '地址不可用：{address}',
  statusListenFailed: '无法监听 {address}：{detail}',
  statusTlsRejected: 'TLS 证书或私钥无效：{detail}',
  statusMoreProblems: '另有 {n} 项问题',
  statusApplyFailed: '规则应用失败：{detail}',
  statusListenersRunning: '{n} 个监听正在运行',
  statusListening: '正在监听 {address}',
  statusFirewall: '防火墙：{detail}',
  statusCertNeeded: 'HTTPS 至少需要一个证书',
  statusCertUnreadable: '无法读取证书 {n}：{detail}',
  statusRootMissing: '{site}：目录 {path} 不存在',
  statusRootNotDir: '{site}：{path} 不是目录',
} as const;

export type MessageKey = keyof typeof zh;

const en: Record<MessageKey, string> = {
  sessionInvalid: 'Your session has expired, please log in again',
  accountOrPasswordEmpty: 'Account or password cannot be empty',
  loginSuccess: 'Login successful',
  loginFailed: 'Login failed',
  loginLocked: 'Too many failed logins, try again in {seconds} s',
  logoutSuccess: 'Logged out',
  wanAccessDenied:
    'Access from the internet is disabled: {ip} is not a local address. It can be allowed in the settings.',
  invalidJson: 'The request body is not valid JSON',
  bodyTooLarge: 'The request body is too large',
  validation: 'Invalid {field}: {detail}',
  validationRoot: 'Invalid request: {detail}',
  notFound: 'No such API',
  moduleDisabled: 'Module {module} is disabled',
  notAvailable: 'Not available yet',
  internal: 'Internal error, see the program log',
  portInUse: 'Port {port} is already in use',
  listenFailed: 'Cannot listen on {address}: {detail}',
  ruleNotFound: 'No such rule',
  interfaceNotFound: 'No network interface named {name}',
  invalidRegex: 'Invalid regular expression: {detail}',
  restarting: 'Restarting',
  gcDone: 'Garbage collection done',
  saved: 'Saved',
  cannotBeEmpty: 'cannot be empty',
  invalidIp: 'is not a valid IP address',
  invalidIpv4: 'is not a valid IPv4 address',
  invalidIpv6: 'is not a valid IPv6 address',
  invalidMac: 'is not a valid MAC address',
  invalidPort: 'port must be between 1 and 65535',
  duplicateName: 'the name is already taken',
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
  ddnsInvalidRegex: 'is not a valid regular expression',
  ddnsForceSyncRange: 'forced sync must be between 60 and 3600 seconds',
  ddnsHttpTimeoutRange: 'HTTP client timeout must be between 3 and 60 seconds',
  ddnsIntervalRange: 'detection interval must be between 30 and 3600 seconds',
  ddnsFirstDelayRange: 'first-check delay must be between 0 and 3600 seconds',
  ddnsInvalidDomain: 'is not a valid domain',
  ddnsInvalidBase64: 'is not valid base64',
  ddnsNoIpv6: 'this DNS provider does not support IPv6',
  ddnsOdhcpdIpv6Only: 'the odhcpd file source is for IPv6 only',
  ddnsInvalidUrl: 'is not a valid http(s) URL',
  ddnsInvalidHostPort: 'must be host:port',
  ddnsInvalidHeader: 'headers must be "Name: value"',
  ddnsInvalidJsonBody: 'the body is not valid JSON',
  ddnsSecretMissing: 'Invalid credentials.secret: cannot be empty',
  invalidDomain: 'is not a valid domain',
  invalidCidr: 'is not a valid IP address or range',
  invalidHeader: 'is not a valid header name or value',
  invalidBackend: 'is not a valid backend address (http:// or https://)',
  invalidUser: 'a user name cannot contain a colon',
  passwordRequired: 'the password of user {user} cannot be empty',
  ddnsTaskDisabled: 'The task is disabled',
  ddnsNotRunning: 'The dynamic DNS module is not running',
  ddnsSyncDone: 'Sync finished',
  ddnsSyncRunning: 'Sync is running',
  pfTlsPairInvalid: 'The certificate and key cannot be used together: {detail}',
  // security management and system functions
  accessDenied: 'The address {ip} may not reach the console',
  invalidSafeUrl: 'only letters, digits, - and _, at most 64 characters',
  invalidTotp: 'the code is 6 digits',
  twoFACodeWrong: 'The two-factor code is wrong',
  twoFANotPending: 'Get a 2FA secret and scan it with your authenticator first',
  twoFAAlreadyOn: 'Two-factor authentication is already on',
  twoFANotOn: 'Two-factor authentication is not on',
  passwordWrong: 'The password is wrong',
  accessWouldLockOut: 'This would shut out your own address {ip}; not saved',
  tokenNotFound: 'No such token',
  tokenReadOnly: 'This API token may not do that',
  sessionNotFound: 'No such session',
  backupInvalid: 'Invalid backup file: {detail}',
  restoreKeyUnknown: 'No pending restore with that key, or it expired',
  restoreDone: 'Configuration restored',
  uploadMissing: 'No file was uploaded',
  uploadTooLarge: 'The uploaded file is too large (at most {max})',
  updateInvalid: 'Invalid update archive: {detail}',
  updateNone: 'No update is staged',
  updateApplied: 'Update installed, restarting',
  updateCancelled: 'Update discarded',
  serviceUnavailable: 'This system has no systemd; cannot install a service',
  serviceInstalled: 'Installed and enabled the systemd service {unit}',
  serviceRemoved: 'Disabled and removed the systemd service {unit}',
  serviceStatus: 'Service status: {status}',
  v2lUnsupported: 'v2l is not supported: it has no purpose in this program',
  statusPortInUse: 'port {port} in use ({address})',
  statusNoPermission: 'no permission to listen on {address} (ports below 1024 need root or CAP_NET_BIND_SERVICE)',
  statusAddressUnavailable: 'address not available: {address}',
  statusListenFailed: 'cannot listen on {address}: {detail}',
  statusTlsRejected: 'TLS certificate or key rejected: {detail}',
  statusMoreProblems: '{n} more problem(s)',
  statusApplyFailed: 'the rule could not be applied: {detail}',
  statusListenersRunning: '{n} listener(s) running',
  statusListening: 'listening on {address}',
  statusFirewall: 'firewall: {detail}',
  statusCertNeeded: 'https needs at least one certificate',
  statusCertUnreadable: 'certificate {n} cannot be read: {detail}',
  statusRootMissing: '{site}: {path} does not exist',
  statusRootNotDir: '{site}: {path} is not a directory',
};

export const MESSAGES: Record<Lang, Record<MessageKey, string>> = { zh_CN: zh, en_US: en };

export function message(lang: Lang, key: MessageKey, vars: Record<string, string | number> = {}): string {
  return MESSAGES[lang][key].replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/**
 * A zod error that should be shown through the message table: schemas write `{ error: msgKey('cannotBeEmpty') }`
 * and `formatIssues` translates it.
 */
const KEY_PREFIX = '@msg:';
export function msgKey(key: MessageKey): string {
  return KEY_PREFIX + key;
}

/** One line that names the first failing field, in the caller's language. */
export function formatIssues(schema: z.ZodType, input: unknown, lang: Lang): string {
  const localeError = lang === 'en_US' ? z.locales.en().localeError : z.locales.zhCN().localeError;
  const r = schema.safeParse(input, { error: localeError });
  if (r.success) return message(lang, 'validationRoot', { detail: '?' });
  const issue = r.error.issues[0];
  if (!issue) return message(lang, 'validationRoot', { detail: '?' });
  let detail = issue.message;
  if (detail.startsWith(KEY_PREFIX)) detail = MESSAGES[lang][detail.slice(KEY_PREFIX.length) as MessageKey] ?? detail;
  const field = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
  return field ? message(lang, 'validation', { field, detail }) : message(lang, 'validationRoot', { detail });
}
