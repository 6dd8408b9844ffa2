/**
 * The DNS-01 record line for a name, as the DDNS providers take domain lines: `_acme-challenge.<name>`,
 * split as `sub:zone` when the chosen task names its zone that way (`home:lan.example.com`, a zone
 * deeper than the providers would guess), the longest such zone winning.
 */
export function challengeLine(name: string, taskDomains: readonly string[]): string {
  let zone = '';
  for (const line of taskDomains) {
    const bare = line.split('?')[0]!.trim().toLowerCase();
    const colon = bare.indexOf(':');
    if (colon === -1) continue;
    const z = bare.slice(colon + 1).trim().replace(/\.$/, '');
    if (z && (name === z || name.endsWith(`.${z}`)) && z.length > zone.length) zone = z;
  }
  if (!zone) return `_acme-challenge.${name}`;
  const sub = name === zone ? '' : `.${name.slice(0, -zone.length - 1)}`;
  return `_acme-challenge${sub}:${zone}`;
}
