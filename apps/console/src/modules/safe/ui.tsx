/** Small pieces shared by the security sections, the system panel and the login portal's sessions. */
import { Alert, Button, Card, Group, Modal, Skeleton, Table, Text, Tooltip, type ButtonProps } from '@mantine/core';
import type { PortalSession } from '@lucky/contracts';
import { useState, type ReactNode } from 'react';
import { pushNotice } from '../../api/notices';
import { lang } from '../../i18n';
import { shortAgent } from './helpers';
import { safeText } from './i18n';
import { copyText } from './transfer';

export function fmtTime(ms: number): string {
  if (!ms) return safeText('never');
  return new Date(ms).toLocaleString(lang === 'en_US' ? 'en-US' : 'zh-CN', { hour12: false });
}

/** What a sign-in session is listed with, a console one or a login portal one alike (they have the same fields). */
type SessionFacts = Pick<PortalSession, 'address' | 'agent' | 'created' | 'lastSeen' | 'expires'>;

/** A session's cells: from where, with what (the whole User-Agent on hover), signed in, last seen, ends. */
export function SessionCells({ session: s }: { session: SessionFacts }) {
  return (
    <>
      <Table.Td style={{ fontFamily: 'monospace', fontSize: 13 }}>{s.address}</Table.Td>
      <Table.Td fz="sm">
        <Tooltip label={s.agent || '-'} multiline maw={420} openDelay={300}>
          <span>{shortAgent(s.agent)}</span>
        </Tooltip>
      </Table.Td>
      <Table.Td fz="sm">{fmtTime(s.created)}</Table.Td>
      <Table.Td fz="sm">{fmtTime(s.lastSeen)}</Table.Td>
      <Table.Td fz="sm">{fmtTime(s.expires)}</Table.Td>
    </>
  );
}

export function CopyBtn(props: { text: string; testid?: string } & ButtonProps) {
  const { text, testid, ...rest } = props;
  const [done, setDone] = useState(false);
  return (
    <Button
      variant="light"
      size="xs"
      color={done ? 'teal' : 'blue'}
      data-testid={testid}
      {...rest}
      onClick={() => {
        void copyText(text).then((ok) => {
          if (!ok) {
            pushNotice(safeText('copyFailed'), 'red', 6000);
            return;
          }
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        });
      }}
    >
      {done ? safeText('copied') : safeText('copy')}
    </Button>
  );
}

export function ConfirmModal(props: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel?: string;
  color?: string;
  loading?: boolean;
  onConfirm: () => void;
  onClose: () => void;
  testid?: string;
}) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title} centered size="sm">
      <Text mb="lg" fz="sm" component="div">
        {props.children}
      </Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={props.onClose}>
          {safeText('cancel')}
        </Button>
        <Button color={props.color ?? 'red'} loading={props.loading} onClick={props.onConfirm} data-testid={props.testid}>
          {props.confirmLabel ?? safeText('confirm')}
        </Button>
      </Group>
    </Modal>
  );
}

export function SectionTitle(props: { children: ReactNode; right?: ReactNode }) {
  return (
    <Group justify="space-between" mb="xs" wrap="nowrap">
      <Text fw={600}>{props.children}</Text>
      {props.right}
    </Group>
  );
}

/** A card of the security page: its title (and what stands right of it), the line saying what it is for, its content. */
export function Section(props: { testid: string; title: ReactNode; right?: ReactNode; intro?: string; children: ReactNode }) {
  return (
    <Card withBorder data-testid={props.testid}>
      <SectionTitle right={props.right}>{props.title}</SectionTitle>
      {props.intro && (
        <Text fz="sm" c="dimmed" mb="sm">
          {props.intro}
        </Text>
      )}
      {props.children}
    </Card>
  );
}

/**
 * A card of settings saved at once: its title and intro (the texts `<texts>.title`, `<texts>.intro`),
 * its save button top right (`<prefix>-save`), and above the fields why the last save was refused
 * (`<prefix>-error`), by the schema or by the daemon.
 */
export function SettingsSection(props: { testid: string; prefix: string; texts: 'lp' | 'sso'; onSave: () => void; busy: boolean; error: string | null; children: ReactNode }) {
  return (
    <Section
      testid={props.testid}
      title={safeText(`${props.texts}.title`)}
      right={
        <Button size="xs" onClick={props.onSave} loading={props.busy} data-testid={`${props.prefix}-save`}>
          {safeText('save')}
        </Button>
      }
      intro={safeText(`${props.texts}.intro`)}
    >
      {props.error && (
        <Alert color="red" p="xs" mb="sm" data-testid={`${props.prefix}-error`}>
          {props.error}
        </Alert>
      )}
      {props.children}
    </Section>
  );
}

/** Reads a list again; it spins while a refresh (not the first load) runs. */
export function RefreshButton(props: { onClick: () => void; loading: boolean }) {
  return (
    <Button size="xs" variant="default" onClick={props.onClick} loading={props.loading}>
      {safeText('refresh')}
    </Button>
  );
}

/** A list's place: a placeholder while it loads, a line when it is empty, else the list. */
export function Listing(props: { pending: boolean; empty: boolean; skeletonH: number; emptyText: string; emptyTestId?: string; centered?: boolean; children: ReactNode }) {
  if (props.pending) return <Skeleton h={props.skeletonH} />;
  if (props.empty) {
    return (
      <Text fz="sm" c="dimmed" {...(props.centered ? { ta: 'center' as const, py: 'md' } : {})} data-testid={props.emptyTestId}>
        {props.emptyText}
      </Text>
    );
  }
  return <>{props.children}</>;
}
