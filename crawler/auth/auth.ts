/**
 * Credentials per scope, on every request the fetcher makes (pages, robots.txt, sitemaps, each
 * redirect hop on its own): the first `auth` entry whose `match` covers the URL gives its
 * credentials, and no other URL ever gets them — a redirect to another host, a sitemap elsewhere,
 * get nothing. Each scope keeps its own cookie jar (tough-cookie), so cookies of one scope never go
 * to another. A form scope logs in at its first request, and again when the site says the session
 * ended (a redirect to the login page, a status such as 401); a Digest scope answers the server's
 * challenge. What went wrong is told with the scope's rule, never with a secret.
 */
import { CookieJar } from 'tough-cookie';
import type { Log } from '../../lib/log.ts';
import type { AuthScopeStatus } from '../../model/index.ts';
import type { Secret } from '../../lib/secret.ts';
import { parseScopeRule, ruleMatches, type ScopeRule } from '../urls/scope.ts';
import { digestAuthorization, parseDigestChallenge, type DigestChallenge } from './digest.ts';
import { formLogin } from './form-login.ts';
import { isLoginUrl, type FormSettings } from './login-url.ts';
import type { RequestAuth, Send } from './types.ts';

/** One `auth` entry, as the config gives it (secrets already read). */
export type AuthSetting = {
  readonly match: string;
  readonly basic?: { readonly username: string; readonly password: Secret } | undefined;
  readonly digest?: { readonly username: string; readonly password: Secret } | undefined;
  readonly bearer?: { readonly token: Secret } | undefined;
  readonly headers?: Readonly<Record<string, Secret>> | undefined;
  readonly cookies?: Readonly<Record<string, Secret>> | undefined;
  readonly form?: (FormSettings & { readonly browser: boolean }) | undefined;
};

/** Logs in through a browser (form.browser), leaving the session's cookies in `jar`. */
export type BrowserLogin = (form: FormSettings, jar: CookieJar) => Promise<{ ok: true } | { ok: false; reason: string }>;

const LOGIN_BACKOFF_MS = 60_000;
/** Hosts named at most for the pages outside a scope that were sent to its login page. */
const HOSTS_OUTSIDE_KEPT = 5;

type ScopeState = {
  readonly rule: ScopeRule;
  readonly setting: AuthSetting;
  readonly jar: CookieJar;
  digest?: { challenge: DigestChallenge; nc: number };
  loggedIn: boolean;
  login?: Promise<void>;
  loginFailure?: string;
  /** When the last login failed: no other attempt for LOGIN_BACKOFF_MS (a wrong password must not hammer the site). */
  loginFailedAt?: number;
  logins: number;
  loginFailures: number;
  renewals: number;
  refused: number;
  lastProblem: string | null;
  /** Requests it covered; and pages it did not cover that were sent to its login page, with their hosts. */
  requests: number;
  loginRedirectsOutside: number;
  readonly hostsOutside: Set<string>;
};

export class AuthService implements RequestAuth {
  private readonly scopes: ScopeState[];

  constructor(
    settings: readonly AuthSetting[],
    private readonly send: Send,
    private readonly log: Log,
    private readonly browserLogin?: BrowserLogin,
  ) {
    this.scopes = settings.map((setting) => ({
      rule: parseScopeRule(setting.match),
      setting,
      jar: new CookieJar(),
      loggedIn: false,
      logins: 0,
      loginFailures: 0,
      renewals: 0,
      refused: 0,
      lastProblem: null,
      requests: 0,
      loginRedirectsOutside: 0,
      hostsOutside: new Set(),
    }));
  }

  /** The scope that covers `url`: the first whose rule matches. */
  private scopeOf(url: string): ScopeState | undefined {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return undefined;
    }
    return this.scopes.find((s) => ruleMatches(s.rule, u));
  }

  /** A login page (or where a logged-out user is sent) of some form scope: never indexed. */
  isLoginPage(url: string): boolean {
    return this.scopes.some((s) => s.setting.form && isLoginUrl(s.setting.form, url));
  }

  async headersFor(url: string, method: string): Promise<Record<string, string>> {
    const s = this.scopeOf(url);
    if (!s) return {};
    s.requests++;
    const { setting } = s;
    if (setting.form && !s.loggedIn && !isLoginUrl(setting.form, url) && !(s.loginFailedAt && Date.now() - s.loginFailedAt < LOGIN_BACKOFF_MS))
      await this.logIn(s);
    const h: Record<string, string> = {};
    if (setting.basic) h.authorization = `Basic ${Buffer.from(`${setting.basic.username}:${setting.basic.password.reveal()}`).toString('base64')}`;
    if (setting.bearer) h.authorization = `Bearer ${setting.bearer.token.reveal()}`;
    if (setting.digest && s.digest) {
      const u = new URL(url);
      h.authorization = digestAuthorization(s.digest.challenge, {
        username: setting.digest.username,
        password: setting.digest.password.reveal(),
        method,
        uri: `${u.pathname}${u.search}`,
        nc: ++s.digest.nc,
      });
    }
    for (const [name, value] of Object.entries(setting.headers ?? {})) h[name.toLowerCase()] = value.reveal();
    const cookies = [...Object.entries(setting.cookies ?? {}).map(([name, value]) => `${name}=${value.reveal()}`), s.jar.getCookieStringSync(url)].filter(
      Boolean,
    );
    if (cookies.length) h.cookie = cookies.join('; ');
    return h;
  }

  async onResponse(
    url: string,
    r: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly setCookies: readonly string[] },
    attempt: number,
  ): Promise<'ok' | 'again' | { readonly refused: string }> {
    const s = this.scopeOf(url);
    if (!s) {
      this.noteLoginRedirect(url, r);
      return 'ok';
    }
    for (const c of r.setCookies) s.jar.setCookieSync(c, url, { ignoreError: true });
    const { setting } = s;
    const scope = `scope ${s.rule.source}`;
    if (setting.digest && r.status === 401 && attempt === 0) {
      const challenge = parseDigestChallenge(r.headers['www-authenticate']);
      // A new challenge (a first one, or a stale nonce): answer it once.
      if (challenge && challenge.nonce !== s.digest?.challenge.nonce) {
        s.digest = { challenge, nc: 0 };
        return 'again';
      }
    }
    if (setting.form && !isLoginUrl(setting.form, url)) {
      const location = r.headers.location;
      const sentToLogin = r.status >= 300 && r.status < 400 && !!location && isLoginUrl(setting.form, new URL(location, url).href);
      if (sentToLogin || setting.form.loggedOut.status.includes(r.status)) {
        if (s.loginFailure) return this.refuse(s, `login failed (${scope}): ${s.loginFailure}`);
        if (attempt === 0) {
          // The session ended: log in again (at the next headersFor), then ask once more.
          if (s.loggedIn) {
            s.renewals++;
            this.log.info(`the session of ${scope} ended; logging in again`);
          }
          s.loggedIn = false;
          return 'again';
        }
        return this.refuse(s, `still sent to the login page after logging in again (${scope})`);
      }
    }
    if ((r.status === 401 || r.status === 403) && (setting.basic || setting.bearer || setting.digest || setting.headers || setting.cookies))
      return this.refuse(s, `HTTP ${r.status} with the credentials of ${scope}`);
    return 'ok';
  }

  view(): AuthScopeStatus[] {
    return this.scopes.map((s) => ({
      scope: s.rule.source,
      kind: ['basic', 'digest', 'bearer', 'headers', 'cookies', 'form'].filter((k) => s.setting[k as keyof AuthSetting]).join(', '),
      logins: s.logins,
      loginFailures: s.loginFailures,
      renewals: s.renewals,
      refused: s.refused,
      lastProblem: s.lastProblem,
      requests: s.requests,
      loginRedirectsOutside: s.loginRedirectsOutside,
      hostsOutside: [...s.hostsOutside],
    }));
  }

  /**
   * A page no scope covers that is sent to the login page of a form scope: its credentials were not
   * used for it (its `match` misses the page's host, say). Counted on that scope, with the page's host
   * (appliance/ warns of a scope that never applied, with them).
   */
  private noteLoginRedirect(url: string, r: { readonly status: number; readonly headers: Readonly<Record<string, string>> }): void {
    const location = r.headers.location;
    if (r.status < 300 || r.status >= 400 || !location) return;
    let to: string;
    try {
      to = new URL(location, url).href;
    } catch {
      return;
    }
    const s = this.scopes.find((x) => x.setting.form && isLoginUrl(x.setting.form, to));
    if (!s) return;
    s.loginRedirectsOutside++;
    if (s.hostsOutside.size < HOSTS_OUTSIDE_KEPT) s.hostsOutside.add(new URL(url).host);
  }

  private refuse(s: ScopeState, why: string): { refused: string } {
    s.refused++;
    s.lastProblem = why;
    return { refused: why };
  }

  /** One login at a time per scope; the requests that wait for it go on after it, whatever came of it. */
  private logIn(s: ScopeState): Promise<void> {
    s.login ??= (async () => {
      const form = s.setting.form!;
      const result = form.browser && this.browserLogin ? await this.browserLogin(form, s.jar) : await formLogin(form, s.jar, this.send);
      s.logins++;
      if (result.ok) {
        s.loggedIn = true;
        s.loginFailure = undefined;
        s.loginFailedAt = undefined;
        this.log.info(`logged in to scope ${s.rule.source}${form.browser ? ' (through the browser)' : ''}`);
      } else {
        s.loginFailures++;
        s.loginFailure = result.reason;
        s.loginFailedAt = Date.now();
        s.lastProblem = `login failed: ${result.reason}`;
        this.log.warn(`login to scope ${s.rule.source} failed: ${result.reason}`);
      }
    })().finally(() => (s.login = undefined));
    return s.login;
  }
}
