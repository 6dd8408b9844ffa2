/** Every text table of the console: both languages have the same keys, no empty text, the same placeholders. */
import { describe, expect, it } from 'vitest';
import { en_US as kitEn } from '../kit/texts.en_US';
import { en_US as acmeEn } from '../modules/acme/i18n.en_US';
import { zh_CN as acmeZh } from '../modules/acme/i18n.zh_CN';
import { zh_CN as kitZh } from '../kit/texts.zh_CN';
import { en_US as ddnsEn } from '../modules/ddns/i18n.en_US';
import { zh_CN as ddnsZh } from '../modules/ddns/i18n.zh_CN';
import { en_US as fbEn } from '../modules/filebrowser/i18n.en_US';
import { zh_CN as fbZh } from '../modules/filebrowser/i18n.zh_CN';
import { en_US as ftpEn } from '../modules/ftpserver/i18n.en_US';
import { zh_CN as ftpZh } from '../modules/ftpserver/i18n.zh_CN';
import { en_US as sftpEn } from '../modules/sftpserver/i18n.en_US';
import { zh_CN as sftpZh } from '../modules/sftpserver/i18n.zh_CN';
import { en_US as pfEn } from '../modules/portforward/i18n.en_US';
import { zh_CN as pfZh } from '../modules/portforward/i18n.zh_CN';
import { en_US as portalEn } from '../modules/portal/i18n.en_US';
import { zh_CN as portalZh } from '../modules/portal/i18n.zh_CN';
import { en_US as publishEn } from '../modules/publish/i18n.en_US';
import { zh_CN as publishZh } from '../modules/publish/i18n.zh_CN';
import { en_US as safeEn } from '../modules/safe/i18n.en_US';
import { zh_CN as safeZh } from '../modules/safe/i18n.zh_CN';
import { en_US as storageEn } from '../modules/storage/i18n.en_US';
import { zh_CN as storageZh } from '../modules/storage/i18n.zh_CN';
import { en_US as stunEn } from '../modules/stun/i18n.en_US';
import { zh_CN as stunZh } from '../modules/stun/i18n.zh_CN';
import { en_US as systemEn } from '../modules/settings/system.i18n.en_US';
import { zh_CN as systemZh } from '../modules/settings/system.i18n.zh_CN';
import { en_US as webEn } from '../modules/web/i18n.en_US';
import { zh_CN as webZh } from '../modules/web/i18n.zh_CN';
import { en_US as webdavEn } from '../modules/webdav/i18n.en_US';
import { zh_CN as webdavZh } from '../modules/webdav/i18n.zh_CN';
import { en_US as wolEn } from '../modules/wol/i18n.en_US';
import { zh_CN as wolZh } from '../modules/wol/i18n.zh_CN';
import { en_US as wanjiEn } from '../modules/wanji/i18n.en_US';
import { zh_CN as wanjiZh } from '../modules/wanji/i18n.zh_CN';
import { en_US } from './en_US';
import { parityProblems } from './parity';
import { zh_CN } from './zh_CN';

const TABLES: [string, Record<string, string>, Record<string, string>][] = [
  ['shell', zh_CN, en_US],
  ['kit', kitZh, kitEn],
  ['certificates', acmeZh, acmeEn],
  ['ddns', ddnsZh, ddnsEn],
  ['file browser', fbZh, fbEn],
  ['ftpserver', ftpZh, ftpEn],
  ['sftpserver', sftpZh, sftpEn],
  ['portforward', pfZh, pfEn],
  ['portal', portalZh, portalEn],
  ['publish', publishZh, publishEn],
  ['safe', safeZh, safeEn],
  ['settings system panel', systemZh, systemEn],
  ['storage', storageZh, storageEn],
  ['stun', stunZh, stunEn],
  ['web', webZh, webEn],
  ['webdav', webdavZh, webdavEn],
  ['wol', wolZh, wolEn],
  ['wanji', wanjiZh, wanjiEn],
];

describe('text tables', () => {
  it.each(TABLES)('%s: zh_CN and en_US match', (_name, zh, en) => {
    expect(parityProblems(zh, en)).toEqual([]);
  });
});
