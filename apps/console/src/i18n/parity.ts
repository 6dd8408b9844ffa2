/** The checks every pair of text tables must pass (used by the shell's and each module's i18n test). */
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** Problems found, empty when both tables have the same keys, no empty text, the same placeholders. */
export function parityProblems(zh: Record<string, string>, en: Record<string, string>): string[] {
  const out: string[] = [];
  for (const k of Object.keys(zh)) if (!(k in en)) out.push(`en_US lacks ${k}`);
  for (const k of Object.keys(en)) if (!(k in zh)) out.push(`zh_CN lacks ${k}`);
  for (const [k, z] of Object.entries(zh)) {
    const e = en[k];
    if (e === undefined) continue;
    if (!z.trim()) out.push(`zh_CN ${k} is empty`);
    if (!e.trim()) out.push(`en_US ${k} is empty`);
    if (placeholders(z).join() !== placeholders(e).join()) out.push(`${k}: placeholders differ`);
  }
  return out;
}
