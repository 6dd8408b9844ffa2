/**
 * Messages shown in the corner: backend error messages stay for two minutes (spec section 8) unless
 * closed; confirmations go sooner. A tiny external store so the API client can push without React.
 */
export const BACKEND_ERROR_MS = 2 * 60_000;
export const INFO_MS = 4_000;

export interface Notice {
  id: number;
  message: string;
  color: 'red' | 'green' | 'blue';
}

let notices: Notice[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function pushNotice(message: string, color: Notice['color'] = 'red', ttl = color === 'red' ? BACKEND_ERROR_MS : INFO_MS): number {
  const id = nextId++;
  // The same text twice in a row (a poll failing) shows once, with a fresh timer.
  notices = [...notices.filter((n) => n.message !== message), { id, message, color }].slice(-5);
  emit();
  setTimeout(() => dismissNotice(id), ttl);
  return id;
}

export function dismissNotice(id: number): void {
  const next = notices.filter((n) => n.id !== id);
  if (next.length === notices.length) return;
  notices = next;
  emit();
}

export function subscribeNotices(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function getNotices(): Notice[] {
  return notices;
}
