/**
 * Texts every rule screen shows the same way (buttons, columns, states, validation wording). A
 * module's table comes first: it words a common text its own way by having the same key.
 */
import { fillVars, lang, type TextTables, type TextVars } from '../i18n';

export const zh_CN = {
  cancel: '取消',
  save: '保存',
  saved: '保存成功',
  delete: '删除',
  deleted: '已删除',
  editShort: '编辑',
  log: '日志',
  settings: '设置',
  settingsSaved: '设置已保存',
  enable: '启用',
  note: '备注',
  colName: '名称',
  colEnable: '启用',
  colActions: '操作',
  domainsMore: '等 {n} 个域名',
  headersHint: '每行一个，格式：名称: 值',
  'state.running': '运行中',
  'state.stopped': '已停止',
  'state.error': '出错',
  'state.disabled': '已停用',
  'err.empty': '{field}不能为空',
  'err.field': '{field}：{detail}',
  'err.row': '{field}第 {n} 行：{detail}',
  'err.rowInline': '第 {n} 行：{detail}',
} as const;

export type KitTextId = keyof typeof zh_CN;

export const en_US: Record<KitTextId, string> = {
  cancel: 'Cancel',
  save: 'Save',
  saved: 'Saved',
  delete: 'Delete',
  deleted: 'Deleted',
  editShort: 'Edit',
  log: 'Log',
  settings: 'Settings',
  settingsSaved: 'Settings saved',
  enable: 'Enabled',
  note: 'Note',
  colName: 'Name',
  colEnable: 'Enabled',
  colActions: 'Actions',
  domainsMore: 'and {n} more',
  headersHint: 'One a line: Name: value',
  'state.running': 'Running',
  'state.stopped': 'Stopped',
  'state.error': 'Error',
  'state.disabled': 'Disabled',
  'err.empty': '{field} cannot be empty',
  'err.field': '{field}: {detail}',
  'err.row': '{field}, line {n}: {detail}',
  'err.rowInline': 'line {n}: {detail}',
};

const KIT_TABLES: TextTables<KitTextId> = { zh_CN, en_US };

/** What each rule module must word itself: its names for the page, the rule and its log. */
export type RuleTextId = 'title' | 'add' | 'edit' | 'empty' | 'deleteTitle' | 'deleteConfirm' | 'logTitle' | 'noLogs';

/** A rule module's lookup: its own texts and the kit's common ones. */
export type RuleTexts = (id: RuleTextId | KitTextId, vars?: TextVars) => string;

/** Binds a rule module's pair of tables over the kit's common texts (`inLang` for tests). */
export function bindRuleTexts<K extends string>(tables: TextTables<K>, inLang = lang) {
  const own: Record<string, string> = tables[inLang];
  return (id: K | KitTextId, vars?: TextVars): string => fillVars(own[id] ?? KIT_TABLES[inLang][id as KitTextId], vars);
}
