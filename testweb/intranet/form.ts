/**
 * The wiki behind a form login: a CSRF token per login form, a session cookie that expires after a
 * number of requests (so a crawl must notice the redirect to /login and sign in again), a logout
 * link on every page. Routes are listed in ../intranet.ts.
 */
import { randomBytes } from 'node:crypto';
import type { RequestListener, ServerResponse } from 'node:http';
import { page, pathOf, readBody, same, sendHtml } from './common.ts';
import type { Credentials } from './sites.ts';

export type FormCounts = { logins: number; failedLogins: number; logouts: number };

/** Login forms whose token is remembered at most (a crawl that never posts them cannot grow it). */
const MAX_TOKENS = 1000;

const token = () => randomBytes(18).toString('base64url');

/** A `next` that stays on this site: a path, never `//host` or a backslash trick. */
const safeNext = (next: string | null | undefined): string | undefined => (next && /^\/(?![/\\])/.test(next) && !next.includes('\\') ? next : undefined);

const escapeAttr = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function formSite(creds: Credentials, pages: number, sessionRequests: number): { handler: RequestListener; counts: FormCounts } {
  const counts: FormCounts = { logins: 0, failedLogins: 0, logouts: 0 };
  const tokens = new Set<string>();
  /** Session id → requests it may still make. */
  const sessions = new Map<string, number>();

  const loginPage = (res: ServerResponse, next: string | undefined, error?: string) => {
    const csrf = token();
    tokens.add(csrf);
    if (tokens.size > MAX_TOKENS) tokens.delete(tokens.values().next().value!);
    const form =
      (error ? `<p class="error" role="alert">${escapeAttr(error)}</p>` : '') +
      `<form method="post" action="/session"><input type="hidden" name="csrf" value="${csrf}">` +
      (next ? `<input type="hidden" name="next" value="${escapeAttr(next)}">` : '') +
      `<label>User <input name="user" autocomplete="username"></label>` +
      `<label>Password <input type="password" name="pass" autocomplete="current-password"></label>` +
      `<button type="submit">Sign in</button></form>`;
    sendHtml(res, 200, page('Sign in to the wiki', 'loginpageword', [], form), { 'cache-control': 'no-store' });
  };

  const sidOf = (cookie: string | undefined) => /(?:^|;\s*)sid=([^;]*)/.exec(cookie ?? '')?.[1];

  const handler: RequestListener = (req, res) => {
    const path = pathOf(req);
    const url = new URL(req.url ?? '/', 'http://wiki');
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('User-agent: *\nAllow: /\n');
    }
    if (path === '/login') return loginPage(res, safeNext(url.searchParams.get('next')));
    if (path === '/session') {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' });
        return res.end();
      }
      return void readBody(req).then((body) => {
        const form = new URLSearchParams(body ?? '');
        const next = safeNext(form.get('next'));
        const csrf = form.get('csrf') ?? '';
        // One use per token: a client must fetch a fresh form for every login.
        const csrfOk = tokens.delete(csrf);
        if (!csrfOk || !same(form.get('user') ?? '', creds.user) || !same(form.get('pass') ?? '', creds.password)) {
          counts.failedLogins++;
          return loginPage(res, next, csrfOk ? 'Wrong user name or password.' : 'The form has expired; please sign in again.');
        }
        const sid = token();
        sessions.set(sid, sessionRequests);
        counts.logins++;
        res.writeHead(303, { location: next ?? '/', 'set-cookie': `sid=${sid}; HttpOnly; Path=/; SameSite=Lax`, 'cache-control': 'no-store' });
        res.end();
      });
    }
    if (path === '/logout') {
      const sid = sidOf(req.headers.cookie);
      if (sid !== undefined && sessions.delete(sid)) counts.logouts++;
      res.writeHead(303, { location: '/login', 'set-cookie': 'sid=; Max-Age=0; HttpOnly; Path=/; SameSite=Lax' });
      return res.end();
    }
    // Everything else needs a session, which is spent one request at a time.
    const sid = sidOf(req.headers.cookie);
    const left = sid === undefined ? undefined : sessions.get(sid);
    if (left === undefined || left <= 0) {
      if (sid !== undefined) sessions.delete(sid);
      res.writeHead(302, { location: `/login?next=${encodeURIComponent(req.url ?? '/')}` });
      return res.end();
    }
    sessions.set(sid!, left - 1);
    const logout: [string, string] = ['/logout', 'Log out'];
    if (path === '/') {
      const links = Array.from({ length: pages }, (_, i): [string, string] => [`/wiki/${i + 1}`, `Wiki page ${i + 1}`]);
      return sendHtml(res, 200, page('Wiki home', 'wikihomeword', [...links, logout]));
    }
    const n = /^\/wiki\/(\d+)$/.exec(path)?.[1];
    if (n !== undefined && Number(n) >= 1 && Number(n) <= pages) {
      const links: [string, string][] = [
        ['/', 'Wiki home'],
        ...(Number(n) < pages ? [[`/wiki/${Number(n) + 1}`, 'Next page'] as [string, string]] : []),
        logout,
      ];
      return sendHtml(res, 200, page(`Wiki page ${n}`, `wikiword${n}`, links));
    }
    return sendHtml(res, 404, page('Not found', 'nothing', [logout]));
  };
  return { handler, counts };
}
