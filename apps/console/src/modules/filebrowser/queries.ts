/** The file browser's calls: the folder being shown, search, details, texts, shares, and links the browser fetches by itself. */
import { filebrowserRoutes, storageRoutes, type RouteInput } from '@lucky/contracts';
import { queryOptions } from '@tanstack/react-query';
import { call } from '../../api';
import { routeQuery } from '../../api/routeQuery';

const R = filebrowserRoutes;

export const fbKeys = {
  all: ['filebrowser'] as const,
  storages: ['filebrowser', 'storages'] as const,
  list: (storage: string, path: string, sort: string, order: string) => ['filebrowser', 'list', storage, path, sort, order] as const,
  shares: ['filebrowser', 'rules'] as const,
};

export const storagesQuery = () => routeQuery(fbKeys.storages, R.storages, { staleTime: 5000 });

export const listQuery = (storage: string, path: string, sort: 'name' | 'size' | 'mtime', order: 'asc' | 'desc') =>
  queryOptions({
    queryKey: fbKeys.list(storage, path, sort, order),
    queryFn: ({ signal }) => call(R.browse, { query: { storage, path, sort, order } }, { signal }),
    enabled: storage !== '',
    retry: false,
  });

export const sharesQuery = () => routeQuery(fbKeys.shares, R.list, { refetchInterval: 5000 });
export const settingsQuery = () => routeQuery(['filebrowser', 'configure'], R.getConfigure);
/** The storage users, for the identity setting. */
export const storageUsersQuery = () => routeQuery(['storage', 'configure'], storageRoutes.getConfigure, { staleTime: 5000 });

export const fb = {
  search: (storage: string, path: string, q: string) => call(R.search, { query: { storage, path, q } }),
  stat: (storage: string, path: string) => call(R.stat, { query: { storage, path } }),
  readText: (storage: string, path: string) => call(R.readText, { query: { storage, path } }),
  saveText: (storage: string, path: string, content: string) => call(R.saveText, { body: { storage, path, content } }),
  mkdir: (storage: string, path: string, name: string) => call(R.mkdir, { body: { storage, path, name } }),
  newFile: (storage: string, path: string, name: string) => call(R.newFile, { body: { storage, path, name } }),
  rename: (storage: string, path: string, name: string) => call(R.rename, { body: { storage, path, name } }),
  move: (body: RouteInput<typeof R.move>['body']) => call(R.move, { body }),
  copy: (body: RouteInput<typeof R.copy>['body']) => call(R.copy, { body }),
  remove: (storage: string, paths: string[]) => call(R.deletePaths, { body: { storage, paths } }),
  /** A link the browser fetches without the token header (downloads, <img>, <video>). */
  async link(storage: string, paths: string[], opts: { name?: string; inline?: boolean } = {}): Promise<string> {
    const t = await call(R.ticket, { body: { storage, paths, name: opts.name ?? '', inline: opts.inline ?? false } });
    return new URL(t.url, document.baseURI).toString();
  },
  createShare: (body: RouteInput<typeof R.create>['body']) => call(R.create, { body }),
  getShare: (key: string) => call(R.get, { params: { key } }),
  enableShare: (key: string, enable: boolean) => call(R.enable, { params: { key }, body: { enable } }),
  revokeShare: (key: string) => call(R.remove, { params: { key }, query: { confirm: '1' } }),
  putSettings: (body: RouteInput<typeof R.putConfigure>['body']) => call(R.putConfigure, { body }),
};

/** Starts a download of a link in this tab (the answer is an attachment: the page stays). */
export function startDownload(url: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.rel = 'noopener';
  a.setAttribute('download', '');
  document.body.appendChild(a);
  a.click();
  a.remove();
}

export function joinPath(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

export function parentOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

export function human(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

export const validName = (n: string) => n.trim() !== '' && !/[/\\\0]/.test(n) && n !== '.' && n !== '..';
