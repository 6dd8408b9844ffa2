/**
 * The program log (spec sections 2 and 4): a draggable dialog titled 程序日志 that polls /api/logs
 * every second with `pre` = newest timestamp seen, starts over when the daemon restarted, and
 * follows the end unless the user scrolled up.
 */
import { Box, Center, Loader, Modal } from '@mantine/core';
import { useViewportSize } from '@mantine/hooks';
import { coreRoutes } from '@lucky/contracts';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { call } from '../api';
import { shellText } from '../i18n';
import { applyLogResponse, initialLogState, type LogState } from './logState';

export const LOG_POLL_MS = 1000;
export const LOG_MAX_WIDTH = 1300;
export const LOG_NARROW = 768;

/** Width: window − 100 capped at 1300; height: window − 350; at 768 px or narrower nearly the full window. */
export function logDialogSize(w: number, h: number): { width: number; height: number } {
  if (w <= LOG_NARROW) return { width: Math.max(200, w - 16), height: Math.max(200, h - 32) };
  return { width: Math.min(w - 100, LOG_MAX_WIDTH), height: Math.max(200, h - 350) };
}

export function LogDialog(props: { opened: boolean; onClose: () => void }) {
  const { width: vw, height: vh } = useViewportSize();
  const size = logDialogSize(vw || window.innerWidth, vh || window.innerHeight);
  const [offset, setOffset] = useState({ x: 0, y: 0 });
  const drag = useRef<{ x: number; y: number; ox: number; oy: number } | null>(null);

  const onPointerDown = (e: React.PointerEvent) => {
    if ((e.target as HTMLElement).closest('button')) return; // the close button
    drag.current = { x: e.clientX, y: e.clientY, ox: offset.x, oy: offset.y };
    (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: React.PointerEvent) => {
    const d = drag.current;
    if (d) setOffset({ x: d.ox + e.clientX - d.x, y: d.oy + e.clientY - d.y });
  };
  const onPointerUp = () => {
    drag.current = null;
  };

  return (
    <Modal.Root opened={props.opened} onClose={props.onClose} size={size.width} centered data-testid="log-dialog">
      <Modal.Overlay />
      <Modal.Content style={{ transform: `translate(${offset.x}px, ${offset.y}px)` }} data-testid="log-dialog-content">
        <Modal.Header
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          style={{ cursor: 'move', userSelect: 'none' }}
          data-testid="log-dialog-header"
        >
          <Modal.Title fw={700}>{shellText('log.title')}</Modal.Title>
          <Modal.CloseButton aria-label={shellText('shell.close')} data-testid="log-close" />
        </Modal.Header>
        <Modal.Body>
          <Box h={size.height} style={{ display: 'flex', flexDirection: 'column' }}>
            <LogView />
          </Box>
        </Modal.Body>
      </Modal.Content>
    </Modal.Root>
  );
}

/** Mounted only while the dialog is open, so polling stops when it closes. */
function LogView() {
  const [state, setState] = useState<LogState>(initialLogState);
  const [loaded, setLoaded] = useState(false);
  const stateRef = useRef(state);
  const follow = useRef(true);
  const lastAuto = useRef<number | null>(null);
  const pre = useRef<HTMLPreElement>(null);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const poll = async () => {
      try {
        const res = await call(coreRoutes.logs, { query: { pre: stateRef.current.pre } }, { silent: true, signal: controller.signal });
        if (stopped) return;
        const next = applyLogResponse(stateRef.current, res);
        stateRef.current = next;
        setState(next);
        setLoaded(true);
      } catch {
        // Not handled (spec section 8): the client counts the failure; the next poll tries again.
      }
      if (!stopped) timer = setTimeout(() => void poll(), LOG_POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
      controller.abort();
    };
  }, []);

  useLayoutEffect(() => {
    const el = pre.current;
    if (!el) return;
    // The user may have scrolled up since the last auto-scroll without the scroll event having
    // arrived yet (it comes with the next frame): the position itself says so.
    if (lastAuto.current !== null && el.scrollTop < lastAuto.current - 8) follow.current = false;
    if (follow.current) {
      el.scrollTop = el.scrollHeight;
      lastAuto.current = el.scrollTop;
    }
  }, [state]);

  const onScroll = () => {
    const el = pre.current;
    if (!el) return;
    // Scrolled up → stop following; back at the end → follow again.
    follow.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
  };

  if (!loaded) {
    return (
      <Center h="100%" data-testid="log-loading">
        <Loader aria-label={shellText('shell.loading')} />
      </Center>
    );
  }
  return (
    <pre
      ref={pre}
      onScroll={onScroll}
      data-testid="log-text"
      data-starttime={state.starttime ?? ''}
      style={{
        margin: 0,
        flex: 1,
        maxHeight: '65vh',
        overflow: 'auto',
        fontSize: 12,
        lineHeight: 1.5,
        background: 'var(--mantine-color-dark-8)',
        color: 'var(--mantine-color-gray-2)',
        padding: 8,
        borderRadius: 4,
        whiteSpace: 'pre-wrap',
        wordBreak: 'break-all',
      }}
    >
      {state.lines.length ? state.lines.join('\n') : shellText('log.empty')}
    </pre>
  );
}
