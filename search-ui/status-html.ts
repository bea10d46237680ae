/** What every panel of the dashboard shares: how it writes times and numbers, table heads and cells. */
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** A time as the dashboard shows it: `2026-11-22 10:00:00 UTC`, or a dash. */
export const when = (t: number | string | null) =>
  t === null
    ? '—'
    : new Date(t)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
export const n = (x: number) => x.toLocaleString('en');

/** A table's head row: a `<th scope="col">` a column (the names are the code's own text, not escaped). */
export const head = (...columns: string[]) => raw(`<tr>${columns.map((c) => `<th scope="col">${c}</th>`).join('')}</tr>`);
/** A cell. */
export const td = (v: unknown) => html`<td>${v}</td>`;
/** A row's class when it shows trouble. */
export const trouble = (yes: unknown) => (yes ? raw(' class="trouble"') : '');
