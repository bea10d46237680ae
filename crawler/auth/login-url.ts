/**
 * A form login's settings, and whether a URL is its login page — apart from the login itself
 * (form-login.ts), which reads forms with cheerio: the renderer's browser login needs only this,
 * and a crawl without a login loads no HTML parser before its first request.
 */
export type FormSettings = {
  readonly url: string;
  readonly fields: Readonly<Record<string, string>>;
  /** Field name → its value (revealed only here, into the request body). */
  readonly secretFields: Readonly<Record<string, { reveal(): string }>>;
  readonly loggedOut: { readonly urlMatches?: string | undefined; readonly status: readonly number[] };
};

/** Whether `url` is the login page, or where the site sends a logged-out user. */
export function isLoginUrl(form: FormSettings, url: string): boolean {
  const u = new URL(url);
  const login = new URL(form.url);
  if (u.origin === login.origin && u.pathname === login.pathname) return true;
  return !!form.loggedOut.urlMatches && new RegExp(form.loggedOut.urlMatches, 'i').test(url);
}
