/** The Wake-on-LAN screen's own texts (zh_CN default, en_US) over the kit's common ones; looked up with `wolText`. */
import { lang } from '../../i18n';
import { bindRuleTexts } from '../../kit/texts';

export const zh_CN = {
  title: '网络唤醒',
  add: '添加设备',
  edit: '编辑设备',
  editShort: '编辑设备',
  empty: '还没有设备，点击“添加设备”开始。',
  name: '名称',
  macs: 'MAC 地址',
  macsHint: '每行一个 MAC 地址，例如 00:11:22:33:44:55',
  broadcast: '广播地址',
  broadcastHint: '例如 255.255.255.255 或 192.168.1.255',
  port: '端口',
  secureOn: 'SecureOn 密码',
  secureOnHint: '6 字节，十六进制或 MAC 格式，留空表示不使用',
  repeat: '重复发送次数',
  status: '状态',
  lastWake: '最近唤醒',
  never: '从未',
  wake: '唤醒',
  deleteTitle: 'Warning',
  deleteConfirm: '确定要删除设备 {name} 吗？',
  logTitle: '日志 · {name}',
  noLogs: '暂无日志',
  'state.running': '运行中',
  'state.stopped': '已停止',
  'state.error': '错误',
  'state.disabled': '已停用',
} as const;

export type WolTextId = keyof typeof zh_CN;

export const en_US: Record<WolTextId, string> = {
  title: 'Wake-on-LAN',
  add: 'Add device',
  edit: 'Edit device',
  editShort: 'Edit device',
  empty: 'No devices yet; click "Add device" to start.',
  name: 'Name',
  macs: 'MAC addresses',
  macsHint: 'One MAC address per line, e.g. 00:11:22:33:44:55',
  broadcast: 'Broadcast address',
  broadcastHint: 'e.g. 255.255.255.255 or 192.168.1.255',
  port: 'Port',
  secureOn: 'SecureOn password',
  secureOnHint: '6 bytes as hex or MAC notation; empty for none',
  repeat: 'Packets per wake',
  status: 'Status',
  lastWake: 'Last woken',
  never: 'never',
  wake: 'Wake',
  deleteTitle: 'Warning',
  deleteConfirm: 'Delete the device {name}?',
  logTitle: 'Log · {name}',
  noLogs: 'No log lines',
  'state.running': 'running',
  'state.stopped': 'stopped',
  'state.error': 'error',
  'state.disabled': 'disabled',
};

export const wolText = bindRuleTexts({ zh_CN, en_US }, lang);
