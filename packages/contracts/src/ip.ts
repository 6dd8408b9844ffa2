/** Address checks with no dependency (net.ts re-exports them beside its schemas). */
export function isIPv4(s: string): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  return parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

/** RFC 4291 text forms, with an optional embedded IPv4 tail and an optional zone (`fe80::1%eth0`). */
export function isIPv6(s: string): boolean {
  const zone = s.indexOf('%');
  const addr = zone === -1 ? s : s.slice(0, zone);
  if (zone !== -1 && !/^[\w.-]+$/.test(s.slice(zone + 1))) return false;
  if (addr.length < 2 || addr.length > 45) return false;
  const halves = addr.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const all = [...head, ...tail];
  let width = all.length;
  const last = all[all.length - 1];
  if (last !== undefined && last.includes('.')) {
    if (!isIPv4(last)) return false;
    all.pop();
    width += 1; // an IPv4 tail takes two groups
  }
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? width <= 7 : width === 8;
}

export function isIP(s: string): boolean {
  return isIPv4(s) || isIPv6(s);
}
