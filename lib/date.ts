/** Milliseconds since the epoch of an HTTP date or a W3C date (sitemaps' <lastmod>), or undefined. */
export function parseDate(s: string | null | undefined): number | undefined {
  if (!s) return undefined;
  const t = Date.parse(s.trim());
  return Number.isFinite(t) ? t : undefined;
}
