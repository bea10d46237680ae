/**
 * The crawl's error vocabulary: a stable code for every way a URL can fail, each mapped to a retry
 * policy. A transient error leaves the URL `failed` with a next attempt (exponential back-off);
 * a permanent one, or a transient one that has used up its attempts, makes it `dead`. Codes are
 * stored on the URL record and shown to users; never rename one.
 */

import type { ErrorCode } from '../model/index.ts';

export type { ErrorCode } from '../model/index.ts';

type Policy = { readonly retry: boolean; readonly hostFault: boolean; readonly describe: string };

/** What each code means, whether it is worth retrying, and whether it counts against the host. */
export const ERRORS: Readonly<Record<ErrorCode, Policy>> = {
  timeout: { retry: true, hostFault: true, describe: 'the server did not answer in time' },
  dns: { retry: true, hostFault: true, describe: 'the host name did not resolve' },
  refused: { retry: true, hostFault: true, describe: 'the connection was refused' },
  reset: { retry: true, hostFault: true, describe: 'the connection was reset' },
  tls: { retry: false, hostFault: true, describe: 'the TLS handshake failed' },
  'bad-response': { retry: true, hostFault: true, describe: 'the response was not valid HTTP or its encoding was broken' },
  network: { retry: true, hostFault: true, describe: 'a network error' },
  'http-429': { retry: true, hostFault: true, describe: 'the server asked us to slow down (429)' },
  'http-5xx': { retry: true, hostFault: true, describe: 'the server failed (5xx)' },
  'http-4xx': { retry: false, hostFault: false, describe: 'the page does not exist or is forbidden (4xx)' },
  'http-other': { retry: false, hostFault: false, describe: 'an HTTP status Trawl does not handle' },
  'too-many-redirects': { retry: false, hostFault: false, describe: 'too many redirects' },
  'blocked-address': {
    retry: false,
    hostFault: false,
    describe: 'the host is at a private, loopback or link-local address that fetch.allowPrivateAddresses does not allow',
  },
  'robots-unavailable': { retry: false, hostFault: true, describe: 'robots.txt could not be fetched, so nothing may be' },
  'host-suspended': { retry: false, hostFault: true, describe: 'the host kept failing and was given up' },
  unparsable: {
    retry: false,
    hostFault: false,
    describe: 'parsing the page killed the parse worker (its memory limit, or a bug), took too long, or the document is damaged',
  },
  proxy: { retry: true, hostFault: false, describe: 'the proxy (fetch.proxy, HTTPS_PROXY) failed or refused the request: the host behind it is not to blame' },
  'auth-failed': {
    retry: true,
    hostFault: false,
    describe: "the credentials of the URL's auth scope were refused, or its login failed (retried: a session may come back)",
  },
  'render-failed': {
    retry: true,
    hostFault: false,
    describe: 'the page needs a browser, and rendering it failed (its time budget, a crashed tab, too many or too large requests)',
  },
  internal: { retry: false, hostFault: false, describe: 'a bug in Trawl (logged)' },
};

/** Fetch-level failure codes (crawler/fetch) → error codes. */
export function fromFetchCode(code: string): ErrorCode {
  switch (code) {
    case 'timeout':
    case 'dns':
    case 'refused':
    case 'reset':
    case 'tls':
    case 'bad-response':
    case 'blocked-address':
    case 'proxy':
      return code;
    default:
      return 'network';
  }
}

export function fromHttpStatus(status: number): ErrorCode {
  if (status === 429) return 'http-429';
  if (status >= 500) return 'http-5xx';
  if (status >= 400) return 'http-4xx';
  return 'http-other';
}

export type RetryPolicy = { readonly maxAttempts: number; readonly baseDelayMs: number };

/** The longest a failed URL waits for its next attempt, whatever the back-off or Retry-After says. */
export const MAX_RETRY_DELAY_MS = 24 * 3600_000;

/** A reason recorded on a URL (an error's message, a refusal's detail) is cut at this length. */
export const MAX_REASON_CHARS = 500;

/** A reason cut to what a URL record keeps (MAX_REASON_CHARS). */
export function clip(reason: string): string {
  return reason.slice(0, MAX_REASON_CHARS);
}

export type Decision = { readonly state: 'failed'; readonly retryAt: number } | { readonly state: 'dead' };

/**
 * Retry or give up: a retryable code with attempts left is retried after baseDelayMs × 2^(attempts-1)
 * (at least `retryAfterMs`, when the server said so); anything else is dead.
 */
export function decide(code: ErrorCode, attempts: number, policy: RetryPolicy, now: number, retryAfterMs = 0): Decision {
  if (!ERRORS[code].retry || attempts >= policy.maxAttempts) return { state: 'dead' };
  const delay = Math.max(retryAfterMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return { state: 'failed', retryAt: now + Math.min(delay, MAX_RETRY_DELAY_MS) };
}
