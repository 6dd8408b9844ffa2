/** RFC 3986 percent-encoding (encodeURIComponent leaves !'()* alone), as request signatures want it. */
export function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
