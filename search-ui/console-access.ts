/**
 * Who may read the search console and its reports: what people searched for is the site owner's,
 * not the searchers'. A request passes with the admin token as a bearer token (scripts), with the
 * console's cookie (a browser that gave the token once on /console/login: the pages work without
 * JavaScript), or — when `server.auth` puts the whole server behind a login — with that login,
 * which every request here has already passed (access.ts).
 *
 * The cookie holds a random key this process keeps (never the token), HttpOnly, SameSite=Strict: a
 * page of another site can neither read it nor make the browser send it, so a form posted from
 * elsewhere reaches the console without it (no cross-site request forgery).
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { sameToken } from './access.ts';
import type { UiDeps } from './deps.ts';
import { HttpError } from './errors.ts';

/** How long a console login lasts. */
export const CONSOLE_SESSION_MS = 12 * 3600_000;
/** Console logins kept at once (the oldest goes first): a bound on memory for a flood of logins. */
const MAX_SESSIONS = 1000;
export const CONSOLE_COOKIE = 'trawl_console';

export type ConsoleAccess = {
  /** Whether the request may read the console, or why not (403: no way in is configured; 401: none given). */
  check(c: Context): 'ok' | 'disabled' | 'login';
  /** Throws the HTTP error an API request gets when it may not. */
  require(c: Context): void;
  /** Logs a browser in with the token it gave: sets the cookie; false when the token is wrong. */
  login(c: Context, token: string): boolean;
  logout(c: Context): void;
  /** Who is acting, for the history of changes: a fingerprint, never a secret. */
  who(c: Context): string;
};

export function consoleAccess(deps: Pick<UiDeps, 'adminToken' | 'serverAuth'>, now: () => number = Date.now): ConsoleAccess {
  const token = deps.adminToken;
  const sessions = new Map<string, number>();
  const bearer = (c: Context) => /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
  const cookie = (c: Context) => {
    const key = getCookie(c, CONSOLE_COOKIE);
    const until = key ? sessions.get(key) : undefined;
    if (until === undefined) return false;
    if (until > now()) return true;
    sessions.delete(key!);
    return false;
  };
  const check = (c: Context): 'ok' | 'disabled' | 'login' => {
    const given = bearer(c);
    if (token && given && sameToken(given, token)) return 'ok';
    if (token && cookie(c)) return 'ok';
    // (Every request has passed server.auth's login by now: the middleware refuses the others.)
    if (deps.serverAuth && (deps.serverAuth.basic || deps.serverAuth.bearer)) return 'ok';
    return token ? 'login' : 'disabled';
  };
  return {
    check,
    require(c) {
      const r = check(c);
      if (r === 'disabled')
        throw new HttpError(403, 'admin-disabled', 'the search log is read with the admin token: set server.adminToken (or TRAWL_ADMIN_TOKEN)');
      if (r === 'login') throw new HttpError(401, 'unauthorized', 'this report needs Authorization: Bearer <admin token>', { 'www-authenticate': 'Bearer' });
    },
    login(c, given) {
      if (!token || !sameToken(given, token)) return false;
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
      const key = randomBytes(32).toString('base64url');
      sessions.set(key, now() + CONSOLE_SESSION_MS);
      const secure = new URL(c.req.url).protocol === 'https:';
      setCookie(c, CONSOLE_COOKIE, key, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: CONSOLE_SESSION_MS / 1000, secure });
      return true;
    },
    logout(c) {
      const key = getCookie(c, CONSOLE_COOKIE);
      if (key) sessions.delete(key);
      deleteCookie(c, CONSOLE_COOKIE, { path: '/' });
    },
    who(c) {
      if (token && bearer(c)) return 'admin token';
      if (token && cookie(c)) return 'console (admin token)';
      const user = deps.serverAuth?.basic?.username;
      return user ? `login ${user}` : 'login';
    },
  };
}
