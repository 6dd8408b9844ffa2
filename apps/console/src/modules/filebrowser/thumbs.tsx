/**
 * Thumbnails of images in the listing and in search results: fetched with the session's headers
 * (an <img> cannot send them) once the row is on screen, four at a time, kept as blob URLs (the
 * last 300, by storage, path, time and size: a changed file is fetched again). A file the daemon
 * refuses (not an image after all, too large) keeps its plain name, without a notice.
 */
import { FB_THUMB_NAMES, LANG_HEADER, TOKEN_HEADER, filebrowserRoutes, type FbEntry } from '@lucky/contracts';
import { useEffect, useRef, useState } from 'react';
import { api } from '../../api';
import { lang } from '../../i18n';
import { storage as local } from '../../storage';

const KEEP = 300;
const AT_ONCE = 4;
const urls = new Map<string, Promise<string | null>>();
let running = 0;
const waiting: Array<() => void> = [];

/** Whether the listing asks for a thumbnail of this entry (the daemon judges the content). */
export const hasThumb = (e: Pick<FbEntry, 'name' | 'kind'>) => e.kind === 'file' && FB_THUMB_NAMES.test(e.name);

async function fetchThumb(storage: string, path: string): Promise<string | null> {
  if (running >= AT_ONCE) await new Promise<void>((r) => waiting.push(r));
  else running++;
  try {
    const headers: Record<string, string> = { [LANG_HEADER]: lang };
    const token = local.get('token');
    if (token) headers[TOKEN_HEADER] = token;
    const res = await fetch(api.url(filebrowserRoutes.thumb, { query: { storage, path, size: '128' } }), { headers, credentials: 'omit' });
    if (!res.ok || !(res.headers.get('content-type') ?? '').startsWith('image/')) return null;
    return URL.createObjectURL(await res.blob());
  } catch {
    return null;
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function thumbUrl(storage: string, e: FbEntry & { path: string }): Promise<string | null> {
  const key = `${storage}\n${e.path}\n${e.mtime}\n${e.size}`;
  const known = urls.get(key);
  if (known) {
    urls.delete(key);
    urls.set(key, known);
    return known;
  }
  const p = fetchThumb(storage, e.path);
  urls.set(key, p);
  if (urls.size > KEEP) {
    const [oldest, old] = urls.entries().next().value!;
    urls.delete(oldest);
    void old.then((u) => u && URL.revokeObjectURL(u));
  }
  return p;
}

/** A 32 px square before an image's name: its thumbnail once the row has been seen. */
export function Thumb(props: { storage: string; entry: FbEntry & { path: string } }) {
  const { storage, entry } = props;
  const [src, setSrc] = useState<string | null>(null);
  const box = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    let live = true;
    const load = () => void thumbUrl(storage, entry).then((u) => live && setSrc(u));
    if (typeof IntersectionObserver === 'undefined' || !box.current) {
      load();
      return () => {
        live = false;
      };
    }
    const seen = new IntersectionObserver((es) => {
      if (es.some((x) => x.isIntersecting)) {
        seen.disconnect();
        load();
      }
    });
    seen.observe(box.current);
    return () => {
      live = false;
      seen.disconnect();
    };
  }, [storage, entry.path, entry.mtime, entry.size]);
  return (
    <span ref={box} style={{ display: 'inline-flex', width: 32, height: 32, marginRight: 8, verticalAlign: 'middle', flex: 'none' }}>
      {src && <img src={src} alt="" data-testid="fb-thumb" style={{ width: 32, height: 32, objectFit: 'cover', borderRadius: 4 }} />}
    </span>
  );
}
