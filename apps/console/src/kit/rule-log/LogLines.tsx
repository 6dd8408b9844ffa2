import { Box, ScrollArea, Skeleton, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';

/** Log lines that follow the end as lines arrive, unless the user has scrolled up to read. */
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
