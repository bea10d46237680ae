/**
 * A form login, as a person does it: open the login page, fill its form — keeping every field the
 * page put there, hidden ones such as a CSRF token included — submit it, and follow the answer to
 * where the site sends a logged-in user. The session's cookies stay in the scope's jar. Success is
 * not being sent back to the login page.
 */
import * as cheerio from 'cheerio/slim';
import type { CookieJar } from 'tough-cookie';
import type { Send } from './types.ts';
import { isLoginUrl, type FormSettings } from './login-url.ts';

const MAX_HOPS = 5;

/** Logs in; `{ok: false, reason}` says why not — never with a field's value. */
export async function formLogin(form: FormSettings, jar: CookieJar, send: Send): Promise<{ ok: true } | { ok: false; reason: string }> {
  const page = await follow(jar, send, 'GET', form.url);
  if ('error' in page) return { ok: false, reason: `the login page ${form.url} could not be fetched (${page.error})` };
  if (page.status >= 400) return { ok: false, reason: `the login page ${form.url} answered HTTP ${page.status}` };
  const $ = cheerio.load(page.text);
  const wanted = [...Object.keys(form.fields), ...Object.keys(form.secretFields)];
  const forms = $('form').toArray();
  const chosen =
    forms.find((f) => wanted.some((n) => $(f).find(`[name="${cssEscape(n)}"]`).length)) ??
    forms.find((f) => $(f).find('input[type=password]').length) ??
    forms[0];
  if (!chosen) return { ok: false, reason: `no form on the login page ${page.url}` };
  const body = new URLSearchParams();
  $(chosen)
    .find('input[name], select[name], textarea[name]')
    .each((_, el) => {
      const e = $(el);
      const name = e.attr('name')!;
      const type = (e.attr('type') ?? 'text').toLowerCase();
      if (['submit', 'button', 'image', 'file', 'reset'].includes(type)) return;
      if ((type === 'checkbox' || type === 'radio') && e.attr('checked') === undefined) return;
      const value =
        el.tagName === 'select'
          ? (e.find('option[selected]').attr('value') ?? e.find('option').first().attr('value') ?? '')
          : el.tagName === 'textarea'
            ? e.text()
            : (e.attr('value') ?? (type === 'checkbox' ? 'on' : ''));
      body.append(name, value);
    });
  for (const [k, v] of Object.entries(form.fields)) body.set(k, v);
  for (const [k, v] of Object.entries(form.secretFields)) body.set(k, v.reveal());
  const action = new URL($(chosen).attr('action') || page.url, page.url).href;
  const method = ($(chosen).attr('method') ?? 'get').toLowerCase() === 'post' ? 'POST' : 'GET';
  const target = method === 'GET' ? `${action.split('?')[0]}?${body}` : action;
  const done = await follow(jar, send, method, target, method === 'POST' ? body.toString() : undefined);
  if ('error' in done) return { ok: false, reason: `submitting the login form to ${action.split('?')[0]} failed (${done.error})` };
  if (done.status >= 400) return { ok: false, reason: `the login form was refused: HTTP ${done.status}` };
  // Sent back to the login page, or answered with a login form again (a site that shows the form
  // with an error where it was posted): the credentials were not taken.
  if (isLoginUrl(form, done.url) || cheerio.load(done.text)('input[type=password]').length)
    return { ok: false, reason: `still on the login page after submitting the form (wrong credentials, or a field the form needs)` };
  return { ok: true };
}

/** A request and the redirects after it (a POST answered 301/302/303 becomes a GET), the cookies kept on the way. */
async function follow(jar: CookieJar, send: Send, method: 'GET' | 'POST', url: string, body?: string) {
  let at = url;
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    const headers: Record<string, string> = {
      cookie: jar.getCookieStringSync(at),
      ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    };
    if (!headers.cookie) delete headers.cookie;
    const r = await send(method, at, headers, body);
    if ('error' in r) return r;
    for (const c of r.setCookies) jar.setCookieSync(c, at, { ignoreError: true });
    const location = r.headers.location;
    if (r.status >= 300 && r.status < 400 && location) {
      at = new URL(location, at).href;
      if (r.status !== 307 && r.status !== 308) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return { ...r, url: at };
  }
  return { error: `more than ${MAX_HOPS} redirects` };
}

function cssEscape(s: string): string {
  return s.replace(/["\\]/g, '\\$&');
}
