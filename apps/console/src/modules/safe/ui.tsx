/** Small pieces shared by the security sections and the system panel. */
import { Button, Group, Modal, Text, type ButtonProps } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { pushNotice } from '../../api/notices';
import { lang } from '../../i18n';
import { safeText } from './i18n';
import { copyText } from './transfer';

export function fmtTime(ms: number): string {
  if (!ms) return safeText('never');
  return new Date(ms).toLocaleString(lang === 'en_US' ? 'en-US' : 'zh-CN', { hour12: false });
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
