/** Wake-on-LAN. */
import { defineMessages } from './define.js';

export const wolMessages = defineMessages(
  {
    wolSent: '已发送 {sent} 个唤醒包到 {target}',
    wolFailed: '唤醒失败：{detail}',
    wolSentShort: '已发送 {sent} 个唤醒包',
  },
  {
    wolSent: 'sent {sent} magic packet(s) to {target}',
    wolFailed: 'wake failed: {detail}',
    wolSentShort: 'Sent {sent} packet(s)',
  },
);
