/** What the auth stage needs of the fetcher, and what the fetcher asks of it. */

/** One plain request (no auth added, no redirect followed): for a form login. */
export type Send = (
  method: 'GET' | 'POST',
  url: string,
  headers: Readonly<Record<string, string>>,
  body?: string,
) => Promise<
  | { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly setCookies: readonly string[]; readonly text: string }
  | { readonly error: string }
>;

/** What the fetcher asks before and after each request (crawler/fetch/fetcher.ts). */
export interface RequestAuth {
  /** Headers to send to `url` (credentials of the scope that covers it, its cookies): none when none covers it. May log in first. */
  headersFor(url: string, method: string): Promise<Record<string, string>>;
  /**
   * A response came: its cookies are kept (in the scope's jar), and the answer says whether to send
   * the request `again` once (a Digest challenge, a session that ended and was renewed), or that the
   * scope's credentials were `refused` (and why, never with the secret).
   */
  onResponse(
    url: string,
    r: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly setCookies: readonly string[] },
    attempt: number,
  ): Promise<'ok' | 'again' | { readonly refused: string }>;
}
