/**
 * The kinds of value the configuration schema (schema.ts) is written with, each checked as it is
 * read, with a message that says what is wrong: bounded whole numbers, URLs, origins, scope rules,
 * CSS selectors, regular expressions, host aliases and durations.
 */
import { z } from 'zod';
import { parseHostAlias } from '../crawler/urls/aliases.ts';
import { selectorProblem } from '../lib/css-selector.ts';

export const int = (min: number, max: number) => z.number().int().min(min).max(max);

/**
 * A database URL. Only its form is checked here; the store checks the rest (a PostgreSQL scheme, a
 * host, a database) and says in one line what is wrong. The value is never echoed: it may hold a password.
 */
export const databaseUrl = z.string().regex(/^[a-z][a-z0-9+.-]*:\/\//i, 'must be a database URL, postgres://user@host:5432/trawl (unset: SQLite in dataDir)');

export const httpUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an absolute http:// or https:// URL, e.g. https://docs.example.org/');

/**
 * An origin allowed to call the search API from its pages (`server.corsOrigins`): `*`, or
 * `scheme://host[:port]` without path, query or credentials, kept as a browser sends it in Origin
 * (lower-case, without a default port).
 */
export const corsOrigin = z
  .string()
  .refine((s) => {
    if (s === '*') return true;
    try {
      const u = new URL(s);
      return (
        (u.protocol === 'http:' || u.protocol === 'https:') &&
        !u.username &&
        !u.password &&
        u.pathname === '/' &&
        !u.search &&
        !u.hash &&
        !/^\w+:\/\/[^/]+\/./.test(s)
      );
    } catch {
      return false;
    }
  }, 'server.corsOrigins: each entry is an origin — scheme, host and port, no path — e.g. https://www.example.org, or `*` for any')
  .transform((s) => (s === '*' ? s : new URL(s).origin));

/** A scope rule: `HOST:regex` (matched against the host, with its port and without it) or `URL:regex` (the whole normalized URL). */
export const scopeRule = z.string().superRefine((s, ctx) => {
  const m = /^(HOST|URL):(.+)$/.exec(s);
  if (!m) {
    ctx.addIssue({ code: 'custom', message: `"${s}" must start with HOST: or URL:, e.g. "HOST:^docs\\.example\\.org$"` });
    return;
  }
  try {
    new RegExp(m[2]!);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: `"${s}" is not a valid regular expression: ${(e as Error).message}` });
  }
});

/** A CSS selector the parser can apply (checked here: a bad one stops Trawl at start). */
export const cssSelector = z.string().superRefine((s, ctx) => {
  const problem = selectorProblem(s);
  if (problem) ctx.addIssue({ code: 'custom', message: `"${s}" is not a CSS selector the parser can apply: ${problem}` });
});

export const regex = z.string().superRefine((s, ctx) => {
  try {
    new RegExp(s);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: `"${s}" is not a valid regular expression: ${(e as Error).message}` });
  }
});

export const hostAlias = z.string().superRefine((s, ctx) => {
  try {
    parseHostAlias(s);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
  }
});

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration written with its unit (`90s`, `30m`, `6h`, `7d`), read as milliseconds; 1 s to 365 d. */
export const duration = z
  .string({ error: 'must be a duration with its unit, as a string: s, m, h or d (e.g. "30m", "7d")' })
  .regex(/^\d+(\.\d+)?\s*[smhd]$/, 'must be a number with a unit: s, m, h or d (e.g. "30m", "7d")')
  .transform((s) => Math.round(parseFloat(s) * UNIT_MS[s.trim().slice(-1)]!))
  .pipe(
    z
      .number()
      .min(1000, 'must be at least 1s')
      .max(365 * 86_400_000, 'must be at most 365d'),
  );
