import { Notification, Stack } from '@mantine/core';
import { useSyncExternalStore } from 'react';
import { dismissNotice, getNotices, subscribeNotices } from '../api/notices';

/** Backend messages in the top-right corner; errors leave after two minutes or when closed. */
export function Notices() {
  const notices = useSyncExternalStore(subscribeNotices, getNotices, getNotices);
  if (notices.length === 0) return null;
  return (
    <Stack gap="xs" style={{ position: 'fixed', bottom: 16, right: 16, zIndex: 1000, width: 360, maxWidth: 'calc(100vw - 32px)' }}>
      {notices.map((n) => (
        <Notification key={n.id} color={n.color} onClose={() => dismissNotice(n.id)} data-testid="notice" withBorder>
          {n.message}
        </Notification>
      ))}
    </Stack>
  );
}
