/**
 * The renderer's contract: what the crawler hands over (a page it already fetched), how the
 * browser's own requests are made (by the crawler's fetcher), and what comes back. The crawler
 * depends on these types only; `renderer.ts` implements them over headless Chromium.
 */

/** What the browser is asked to render: a page already fetched over HTTP by the crawler (politeness and robots.txt already held for it). */
export type RenderJob = {
  readonly url: string;
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
};

/**
 * How the browser's own requests (scripts, XHR/fetch, CSS) are made: by the crawler's fetcher, so
 * the address policy and the user agent hold; bounded by `maxBytes` (the page's remaining byte
 * budget).
 */
export type SubFetch = (
  url: string,
  init: { readonly method: string; readonly headers: Readonly<Record<string, string>>; readonly body?: Uint8Array },
  maxBytes: number,
  signal: AbortSignal,
) => Promise<
  | { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: Uint8Array; readonly truncated: boolean }
  | { readonly error: string }
>;

export type RenderOptions = {
  /** The browser's executable (default '/usr/bin/chromium'; the caller passes render.browserPath). */
  readonly browserPath: string;
  /** Pages rendered at once (default 2); more wait in FIFO order. */
  readonly concurrency: number;
  /** A page's whole budget from the moment it gets a slot (default 15000). */
  readonly timeoutMs: number;
  /**
   * Quiet time that means "settled" when a page keeps a short timer or animation going, and the
   * horizon of the timers waited for (default 500); a page with nothing pending settles after
   * min(50, settleMs) of stillness (150 after a script, stylesheet or frame not yet seen loaded; settle.ts).
   */
  readonly settleMs: number;
  /** Sub-requests per page (default 200). */
  readonly maxRequests: number;
  /** Bytes of sub-responses per page (default 20 MB). */
  readonly maxBytes: number;
  readonly subFetch: SubFetch;
  /** The crawler's say on a sub-request's URL (scheme, address); refused → aborted. */
  readonly allowRequest?: (url: string) => boolean;
  readonly log?: { warn(msg: string): void; info(msg: string): void };
};

export type SettledBy = 'idle' | 'network-quiet' | 'no-mutations' | 'budget';

export type RenderFailure = 'timeout' | 'crashed' | 'too-many-requests' | 'too-large' | 'browser';

export type RenderResult =
  | {
      readonly kind: 'rendered';
      readonly html: string;
      /** The page's URL after client-side routing (history.pushState may have changed it). */
      readonly url: string;
      readonly ms: number;
      readonly requests: number;
      readonly bytes: number;
      readonly settledBy: SettledBy;
    }
  | { readonly kind: 'failed'; readonly reason: RenderFailure; readonly detail: string; readonly ms: number };

export type RendererStats = {
  rendered: number;
  failed: number;
  waiting: number;
  rendering: number;
  totalMs: number;
  browserRssBytes: number;
  restarts: number;
};

export interface Renderer {
  /** Never rejects: whatever the page does, the answer is a result. */
  render(job: RenderJob, signal?: AbortSignal): Promise<RenderResult>;
  /** Pages rendered and failed so far, waiting for a slot, rendering now, total ms, the browser's resident memory (all its processes), restarts. */
  stats(): RendererStats;
  close(): Promise<void>;
}

/**
 * No usable browser at `browserPath` (missing, not executable, does not start): message says how to
 * install one (`apt-get install chromium`, or render.browserPath).
 */
export class BrowserUnavailable extends Error {
  override readonly name = 'BrowserUnavailable';
  /** A setting to fix (render.browserPath, render.mode): the CLI exits 2, as for any bad setting. */
  readonly code = 'ERR_NO_BROWSER';
}
