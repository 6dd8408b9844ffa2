/** Texts every rule screen shares: English, the same keys as texts.zh_CN.ts. */
import type { KitTextId } from './texts';

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
