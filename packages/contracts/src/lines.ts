/** A list that may come as one-per-line text (the console's textareas) or as an array: the lines, trimmed, without empty ones and tags. */
export const splitLines = (v: unknown): unknown =>
  typeof v === 'string'
    ? v
        .replace(/<[^>]*>/g, '')
        .split(/\r?\n/)
        .map((s) => s.trim())
        .filter((s) => s !== '')
    : v;
