/**
 * The little XML the daemon reads and writes (WebDAV bodies, a remote WebDAV server's multistatus,
 * S3's listings): documents parsed into elements with resolved namespaces, and answers written as
 * text. Bodies are capped by the caller; a DOCTYPE is refused outright so that no entity expansion
 * can ever blow up (the "billion laughs").
 */

export interface XmlElement {
  /** The namespace URI ('' when none). */
  ns: string;
  /** The local name. */
  name: string;
  /** Attributes by their qualified name as written (xmlns declarations included). */
  attrs: Record<string, string>;
  children: XmlNode[];
  /** The namespace declarations in scope here, by prefix ('' = default), for re-serialising dead properties. */
  scope: Record<string, string>;
}
export type XmlNode = XmlElement | string;

export class XmlError extends Error {}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    const v = ENTITIES[e];
    if (v === undefined) throw new XmlError(`unknown entity ${m}`);
    return v;
  });
}

const NAME = /^[A-Za-z_\u00C0-\uFFFF][\w.\-\u00B7-\uFFFF]*(?::[A-Za-z_\u00C0-\uFFFF][\w.\-\u00B7-\uFFFF]*)?$/;

/** Parses a whole document; throws XmlError when it is not well formed. */
export function parseXml(text: string): XmlElement {
  let i = 0;
  const stack: Array<{ el: XmlElement; qname: string }> = [];
  let root: XmlElement | undefined;
  const n = text.length;
  const fail = (why: string): never => {
    throw new XmlError(`${why} at ${i}`);
  };
  while (i < n) {
    const lt = text.indexOf('<', i);
    const chunk = lt === -1 ? text.slice(i) : text.slice(i, lt);
    if (chunk) {
      if (stack.length) stack[stack.length - 1]!.el.children.push(decodeEntities(chunk));
      else if (chunk.trim()) fail('text outside the root element');
    }
    if (lt === -1) break;
    i = lt;
    if (text.startsWith('<?', i)) {
      const e = text.indexOf('?>', i);
      if (e === -1) fail('unterminated processing instruction');
      i = e + 2;
    } else if (text.startsWith('<!--', i)) {
      const e = text.indexOf('-->', i);
      if (e === -1) fail('unterminated comment');
      i = e + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      const e = text.indexOf(']]>', i);
      if (e === -1 || !stack.length) fail('bad CDATA');
      stack[stack.length - 1]!.el.children.push(text.slice(i + 9, e));
      i = e + 3;
    } else if (text.startsWith('<!', i)) {
      fail('DOCTYPE is not accepted');
    } else if (text.startsWith('</', i)) {
      const e = text.indexOf('>', i);
      if (e === -1) fail('unterminated end tag');
      const qname = text.slice(i + 2, e).trim();
      const top = stack.pop();
      if (!top || top.qname !== qname) fail(`mismatched end tag ${qname}`);
      i = e + 1;
      if (!stack.length) root = top!.el;
    } else {
      // A start tag: the name, then attributes, up to > or />, with quotes respected.
      let j = i + 1;
      while (j < n && !/[\s/>]/.test(text[j]!)) j++;
      const qname = text.slice(i + 1, j);
      if (!NAME.test(qname)) fail(`bad element name ${qname}`);
      const attrs: Record<string, string> = {};
      let selfClose = false;
      for (;;) {
        while (j < n && /\s/.test(text[j]!)) j++;
        if (j >= n) fail('unterminated start tag');
        if (text[j] === '>') {
          j++;
          break;
        }
        if (text.startsWith('/>', j)) {
          selfClose = true;
          j += 2;
          break;
        }
        const eq = text.indexOf('=', j);
        if (eq === -1) fail('attribute without value');
        const an = text.slice(j, eq).trim();
        if (!NAME.test(an)) fail(`bad attribute name ${an}`);
        let k = eq + 1;
        while (k < n && /\s/.test(text[k]!)) k++;
        const q = text[k];
        if (q !== '"' && q !== "'") fail('unquoted attribute');
        const end = text.indexOf(q!, k + 1);
        if (end === -1) fail('unterminated attribute');
        if (an in attrs) fail(`repeated attribute ${an}`);
        attrs[an] = decodeEntities(text.slice(k + 1, end));
        j = end + 1;
      }
      if (root) fail('second root element');
      const parentScope = stack.length ? stack[stack.length - 1]!.el.scope : { xml: 'http://www.w3.org/XML/1998/namespace' };
      const scope = { ...parentScope };
      for (const [a, v] of Object.entries(attrs)) {
        if (a === 'xmlns') scope[''] = v;
        else if (a.startsWith('xmlns:')) {
          // An empty prefixed namespace is not allowed in XML 1.0 namespaces (litmus checks this).
          if (v === '') fail('empty prefixed namespace');
          scope[a.slice(6)] = v;
        }
      }
      const colon = qname.indexOf(':');
      const prefix = colon === -1 ? '' : qname.slice(0, colon);
      const ns = scope[prefix];
      if (colon !== -1 && ns === undefined) fail(`undeclared prefix ${prefix}`);
      for (const a of Object.keys(attrs)) {
        const c = a.indexOf(':');
        if (c !== -1 && a.slice(0, c) !== 'xmlns' && scope[a.slice(0, c)] === undefined) fail(`undeclared prefix in ${a}`);
      }
      const el: XmlElement = { ns: ns ?? '', name: colon === -1 ? qname : qname.slice(colon + 1), attrs, children: [], scope };
      if (stack.length) stack[stack.length - 1]!.el.children.push(el);
      i = j;
      if (selfClose) {
        if (!stack.length) root = el;
      } else stack.push({ el, qname });
    }
  }
  if (stack.length || !root) throw new XmlError('unterminated document');
  return root;
}

export const DAV = 'DAV:';

export function elements(el: XmlElement): XmlElement[] {
  return el.children.filter((c): c is XmlElement => typeof c !== 'string');
}

export function child(el: XmlElement, ns: string, name: string): XmlElement | undefined {
  return elements(el).find((c) => c.ns === ns && c.name === name);
}

export function textOf(el: XmlElement): string {
  return el.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}

export function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/**
 * Writes an element back as text, self-contained: every namespace it and its children use is
 * declared on it, so a dead property stored alone reads back the same in any answer.
 */
export function serialise(el: XmlElement): string {
  const used = new Map<string, string>(); // ns -> prefix
  const pfx = (ns: string): string => {
    let p = used.get(ns);
    if (p === undefined) {
      p = `x${used.size}`;
      used.set(ns, p);
    }
    return p;
  };
  const write = (e: XmlElement): string => {
    const tag = e.ns ? `${pfx(e.ns)}:${e.name}` : e.name;
    let attrs = '';
    for (const [a, v] of Object.entries(e.attrs)) {
      if (a === 'xmlns' || a.startsWith('xmlns:')) continue;
      const c = a.indexOf(':');
      if (c === -1) attrs += ` ${a}="${esc(v)}"`;
      else {
        const ns = e.scope[a.slice(0, c)]!;
        attrs += ns === 'http://www.w3.org/XML/1998/namespace' ? ` ${a}="${esc(v)}"` : ` ${pfx(ns)}:${a.slice(c + 1)}="${esc(v)}"`;
      }
    }
    // A property element without a namespace must not inherit a default one from where it is embedded.
    if (!e.ns) attrs += ' xmlns=""';
    const body = e.children.map((c) => (typeof c === 'string' ? esc(c) : write(c))).join('');
    return `<${tag}${attrs}>${body}</${tag}>`;
  };
  const inner = write(el);
  const decl = [...used].map(([ns, p]) => ` xmlns:${p}="${esc(ns)}"`).join('');
  // Put the declarations on the outer element (right after its name).
  const m = /^<[^\s>]+/.exec(inner)!;
  return m[0] + decl + inner.slice(m[0].length);
}
