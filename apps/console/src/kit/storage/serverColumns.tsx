/**
 * The rule list of a storage server (WebDAV, FTP, SFTP): name with its scheme, where it listens, what it
 * mounts, the address to copy, status and traffic. Each server brings its scheme, the line under
 * its listen address, and what it counts besides the common traffic.
 */
import { Badge, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { RuleStatus, StorageMount } from '@lucky/contracts';
import type { Figure } from '../rule-list/RuleFigures';
import { RuleNameCell, RuleStatusCell } from '../rule-list/RuleCells';
import type { RuleTestIds } from '../rule-list/ruleModule';
import type { RuleColumn } from '../rule-list/RulePage';
import type { TextVars } from '../../i18n';
import type { KitTextId, RuleTextId } from '../texts';
import { MountsCell, TrafficCell, UrlCell, type Traffic } from './cells';

const mono = { fontFamily: 'monospace' } as const;

/** The texts a storage server's table has of its own, beside the kit's. */
export type ServerTextId = 'colListen' | 'colUrl' | 'colStatus' | 'colFigures' | 'allAddresses' | 'noTraffic' | 'deniedHint';

/** What a storage server's list item has in common. */
export interface ServerRow {
  name: string;
  note?: string;
  address: string;
  port: number;
  mounts: readonly StorageMount[];
  url: string;
  status: RuleStatus;
  figures: Traffic;
}

export interface ServerColumnsOptions<R extends ServerRow> {
  text: (id: ServerTextId | RuleTextId | KitTextId, vars?: TextVars) => string;
  testIds: RuleTestIds;
  /** The module's data-testid prefix (`webdav` gives `webdav-row-listen`…). */
  testPrefix: string;
  scheme: (r: R) => { label: string; secure: boolean };
  /** The line under the listen address (WebDAV's prefix, FTP's passive ports). */
  listenDetail: (r: R) => ReactNode;
  /**
   * What the server counts besides connections and bytes (`more`: a line of its own), and whether
   * nothing happened yet.
   */
  activity: (r: R) => { figure: Figure; more?: Figure[]; quiet: boolean };
}

export function serverColumns<R extends ServerRow>(o: ServerColumnsOptions<R>): RuleColumn<R>[] {
  const t = o.testPrefix;
  return [
    {
      head: o.text('colName'),
      td: { maw: 200 },
      cell: (r) => {
        const scheme = o.scheme(r);
        return (
          <RuleNameCell name={r.name} note={r.note} testId={o.testIds.rowName}>
            <Group gap={4} mt={2}>
              <Badge size="xs" variant="light" color={scheme.secure ? 'teal' : 'gray'} tt="none" data-testid={`${t}-row-scheme`}>
                {scheme.label}
              </Badge>
            </Group>
          </RuleNameCell>
        );
      },
    },
    {
      head: o.text('colListen'),
      td: { maw: 200 },
      cell: (r) => (
        <>
          <Text fz="sm" style={mono} data-testid={`${t}-row-listen`}>
            {r.address ? (r.address.includes(':') ? `[${r.address}]` : r.address) : '*'}:{r.port}
          </Text>
          {!r.address && (
            <Text fz="xs" c="dimmed">
              {o.text('allAddresses')}
            </Text>
          )}
          {o.listenDetail(r)}
        </>
      ),
    },
    { head: o.text('colMounts'), td: { maw: 220 }, cell: (r) => <MountsCell mounts={r.mounts} testPrefix={t} /> },
    { head: o.text('colUrl'), td: { maw: 280 }, cell: (r) => <UrlCell url={r.url} testPrefix={t} /> },
    { head: o.text('colStatus'), td: { maw: 240 }, cell: (r) => <RuleStatusCell status={r.status} text={o.text} testIds={o.testIds} /> },
    {
      head: o.text('colFigures'),
      td: { 'data-testid': `${t}-figures` },
      cell: (r) => {
        const a = o.activity(r);
        const s = r.figures;
        return (
          <TrafficCell
            figures={s}
            activity={a.figure}
            {...(a.more ? { more: a.more } : {})}
            quiet={s.connections === 0 && a.quiet && s.denied === 0}
            quietText={o.text('noTraffic')}
            deniedHint={o.text('deniedHint')}
            testPrefix={t}
          />
        );
      },
    },
  ];
}
