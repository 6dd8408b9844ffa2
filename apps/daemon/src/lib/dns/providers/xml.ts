/** The little XML the providers' answers need (Route 53): elements by name, text unescaped; and escaping for requests. */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function xmlUnescape(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (ENTITIES[e] ?? m),
  );
}

export function xmlEscape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&${Object.keys(ENTITIES).find((k) => ENTITIES[k] === c)};`);
}

/** The inner XML of each `<tag>` element (not nested in one of the same name). */
export function xmlElements(xml: string, tag: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'g');
  for (const m of xml.matchAll(re)) out.push(m[1]!);
  return out;
}

/** The text of the first `<tag>`, unescaped; '' when there is none. */
export function xmlText(xml: string, tag: string): string {
  const inner = xmlElements(xml, tag)[0];
  return inner === undefined ? '' : xmlUnescape(inner.trim());
}
