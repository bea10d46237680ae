/**
 * FNV-1a (32 bits) of a string's UTF-16 code units — for ASCII, the bytes' FNV-1a — for the benches:
 * which half of a query set a query is in (relevance/split.ts), which host a corpus path lives on
 * (split-web.ts, scale.ts), a query's seeded typo (relevance/variants.ts).
 */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
