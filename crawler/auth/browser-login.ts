/**
 * A form login through the browser (`form.browser: true`), for login pages that only work with
 * JavaScript: Chromium opens the login page, the fields are filled by name, the form is sent (Enter
 * in its last field), and once the browser has left the login page its cookies go to the scope's jar,
 * where the plain fetcher takes them from. A browser of its own, for the login only, closed after it.
 */
import type { CookieJar } from 'tough-cookie';
import { CHROMIUM_ARGS, findBrowser } from '../render/browser.ts';
import { isLoginUrl, type FormSettings } from './login-url.ts';

const LOGIN_TIMEOUT_MS = 30_000;

export function browserLogin(browserPath: string): (form: FormSettings, jar: CookieJar) => Promise<{ ok: true } | { ok: false; reason: string }> {
  return async (form, jar) => {
    if (!(await findBrowser(browserPath)))
      return { ok: false, reason: `form.browser needs a browser, and there is none at ${browserPath} (render.browserPath; Debian: apt-get install chromium)` };
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: browserPath,
      args: [...CHROMIUM_ARGS],
      headless: true,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    try {
      const context = await browser.newContext({ acceptDownloads: false, serviceWorkers: 'block' });
      const page = await context.newPage();
      page.on('dialog', (d) => void d.dismiss().catch(() => undefined));
      page.setDefaultTimeout(LOGIN_TIMEOUT_MS);
      await page.goto(form.url, { waitUntil: 'load' });
      const fields = [...Object.entries(form.fields), ...Object.entries(form.secretFields).map(([k, v]) => [k, v.reveal()] as const)];
      if (!fields.length) return { ok: false, reason: 'form.fields and form.secretFields name no field to fill' };
      for (const [name, value] of fields) {
        const field = page.locator(`[name="${name.replace(/["\\]/g, '\\$&')}"]`).first();
        if (!(await field.count())) return { ok: false, reason: `the login page has no field named ${name}` };
        await field.fill(value);
      }
      await Promise.all([
        page.waitForURL((u) => !isLoginUrl(form, u.href), { timeout: LOGIN_TIMEOUT_MS }).catch(() => undefined),
        page
          .locator(`[name="${fields.at(-1)![0].replace(/["\\]/g, '\\$&')}"]`)
          .first()
          .press('Enter'),
      ]);
      await page.waitForLoadState('load').catch(() => undefined);
      if (isLoginUrl(form, page.url()))
        return { ok: false, reason: 'still on the login page after submitting the form in the browser (wrong credentials, or a field the form needs)' };
      for (const c of await context.cookies()) {
        const host = c.domain.replace(/^\./, '');
        jar.setCookieSync(
          `${c.name}=${c.value}; Domain=${c.domain}; Path=${c.path}${c.secure ? '; Secure' : ''}` +
            `${c.httpOnly ? '; HttpOnly' : ''}${c.expires > 0 ? `; Expires=${new Date(c.expires * 1000).toUTCString()}` : ''}`,
          `${c.secure ? 'https' : 'http'}://${host}${c.path}`,
          { ignoreError: true },
        );
      }
      return { ok: true };
    } catch (e) {
      return { ok: false, reason: `the browser login failed: ${(e as Error).message.split('\n')[0]}` };
    } finally {
      await browser.close().catch(() => undefined);
    }
  };
}
