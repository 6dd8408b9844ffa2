/** The login page's own texts: 中文 (the default). The password form's texts are the shell's (login.*). */
export const zh_CN = {
  or: '或',
  ssoButton: '使用 {label} 登录',
  ssoFinishing: '正在完成单点登录…',
} as const;
