/** The settings page's system panel texts (zh_CN default, en_US); looked up with `systemText`. */
import { bindTexts } from '../../i18n';
import { en_US } from './system.i18n.en_US';
import { zh_CN } from './system.i18n.zh_CN';

export type SystemTextId = keyof typeof zh_CN;

export const systemText = bindTexts({ zh_CN, en_US });

/** A base config field's label, or its own name when this table does not know it. */
export function fieldLabel(name: string): string {
  const id = `field.${name}`;
  return id in zh_CN ? systemText(id as SystemTextId) : name;
}
