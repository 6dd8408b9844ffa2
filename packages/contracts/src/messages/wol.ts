/** Wake-on-LAN. */
import { defineMessages } from './define.js';

export const wolMessages = defineMessages(
  {
    wolSent: '已发送 {sent} 个唤醒包到 {target}',
    wolFailed: '唤醒失败：{detail}',
    wolSentShort: '已发送 {sent} 个唤醒包',
    wolBadInterface: '网卡名称无效',
    wolBadCheckHost: '应为 IP 地址或主机名',
    wolNoInterface: '网卡 {name} 不存在或没有 IPv4 地址',
    wolNoCheck: '设备没有设置在线检测地址',
    wolOnlineAfter: '设备已在线，用时 {seconds} 秒',
    wolStillOffline: '{seconds} 秒内设备没有上线',
  },
  {
    wolSent: 'sent {sent} magic packet(s) to {target}',
    wolFailed: 'wake failed: {detail}',
    wolSentShort: 'Sent {sent} packet(s)',
    wolBadInterface: 'not a valid interface name',
    wolBadCheckHost: 'must be an IP address or a host name',
    wolNoInterface: 'interface {name} does not exist or has no IPv4 address',
    wolNoCheck: 'the device has no address to check',
    wolOnlineAfter: 'The device is up after {seconds} s',
    wolStillOffline: 'The device did not come up within {seconds} s',
  },
);
