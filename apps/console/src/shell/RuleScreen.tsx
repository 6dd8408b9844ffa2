/**
 * What every rule screen (WOL, DDNS, web, port forwarding) shows the same way: the module-disabled
 * notice, loading, the empty state or the table; and the delete confirmation.
 */
import { Alert, Box, Button, Card, Group, Modal, ScrollArea, Skeleton, Table, Text } from '@mantine/core';
import { useEffect, useRef, type DependencyList, type ReactNode, type RefObject } from 'react';
import { shellText, type MessageId } from '../i18n';

export function RuleTableCard(props: {
  /** The module key, for the "module disabled" notice (`module.<key>` text). */
  module: string;
  enabled: boolean;
  loading: boolean;
  empty: boolean;
  emptyText: string;
  /** Test ids: `<prefix>-empty` and `<prefix>-table`. */
  testPrefix: string;
  minWidth: number;
  /** Table.Thead and Table.Tbody. */
  children: ReactNode;
}) {
  if (!props.enabled) {
    return (
      <Alert color="orange" data-testid="module-disabled">
        {shellText('shell.moduleDisabled', { module: shellText(`module.${props.module}` as MessageId) })}
      </Alert>
    );
  }
  return (
    <Card withBorder p={0}>
      {props.loading ? (
        <Skeleton h={120} />
      ) : props.empty ? (
        <Text p="lg" c="dimmed" ta="center" data-testid={`${props.testPrefix}-empty`}>
          {props.emptyText}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={props.minWidth}>
          <Table striped highlightOnHover verticalSpacing="xs" data-testid={`${props.testPrefix}-table`}>
            {props.children}
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}

/**
 * After a refused save (`attempt` > 0), brings the first invalid field into view: forms are long
 * and the message may sit far from it. `deps` add other triggers (the tab that opened).
 */
export function useScrollToProblem(root: RefObject<HTMLElement | null>, attempt: number, deps: DependencyList = []): void {
  useEffect(() => {
    if (attempt === 0) return;
    root.current?.querySelector('[aria-invalid="true"]')?.scrollIntoView({ block: 'center' });
  }, [attempt, ...deps]);
}

/** Props that mark a form tab holding a problem, so it shows even when another tab is open. */
export function problemTabProps(hasProblem: boolean) {
  return hasProblem ? { color: 'red', c: 'red', fw: 600, rightSection: <span aria-hidden>●</span> } : {};
}

export function ConfirmDelete(props: {
  opened: boolean;
  title: string;
  question: string;
  deleteText: string;
  loading: boolean;
  onCancel: () => void;
  onConfirm: () => void;
  testId: string;
}) {
  return (
    <Modal opened={props.opened} onClose={props.onCancel} title={props.title} centered size="sm">
      <Text mb="lg">{props.question}</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={props.onCancel}>
          {shellText('common.cancel')}
        </Button>
        <Button color="red" loading={props.loading} onClick={props.onConfirm} data-testid={props.testId}>
          {props.deleteText}
        </Button>
      </Group>
    </Modal>
  );
}

/** A rule's log lines: follows the end as lines arrive, unless the user has scrolled up to read. */
export function LogLines(props: { lines: string[] | undefined; loading: boolean; emptyText: string; testId: string; maxHeight?: string }) {
  const viewport = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const text = (props.lines ?? []).join('\n');
  useEffect(() => {
    if (follow.current) viewport.current?.scrollTo({ top: viewport.current.scrollHeight });
  }, [text]);
  if (props.loading) return <Skeleton h={200} />;
  if (!props.lines?.length) {
    return (
      <Text c="dimmed" ta="center" p="lg" data-testid={`${props.testId}-empty`}>
        {props.emptyText}
      </Text>
    );
  }
  return (
    <ScrollArea.Autosize
      mah={props.maxHeight ?? '60vh'}
      viewportRef={viewport}
      onScrollPositionChange={({ y }) => {
        const el = viewport.current;
        if (el) follow.current = el.scrollHeight - el.clientHeight - y < 24;
      }}
    >
      <Box
        component="pre"
        m={0}
        p="xs"
        data-testid={props.testId}
        style={{ fontSize: 12, whiteSpace: 'pre-wrap', wordBreak: 'break-all', background: 'var(--mantine-color-gray-0)', borderRadius: 4 }}
      >
        {text}
      </Box>
    </ScrollArea.Autosize>
  );
}
