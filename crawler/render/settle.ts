/**
 * When is a rendered page done? Whichever comes first, never past the budget:
 *   network-quiet  the load event has fired and no sub-request has been in flight for settleMs;
 *   no-mutations   the DOM has not changed for settleMs since DOMContentLoaded, no sub-request
 *                  has begun or ended for settleMs either, and any still in flight has been so for
 *                  HANGING_AFTER × settleMs or more;
 *   budget         neither came in time: the page is taken as it is.
 * The guards on no-mutations are deliberate: a page whose data calls are merely slow, or many in a
 * row, keeps a quiet DOM while it waits for its JSON, and must not be taken as an empty shell; a
 * request in flight that long is presumed to be a long-poll or a stream that will never end, which
 * is what no-mutations exists for.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { SettledBy } from './types.ts';

export const HANGING_AFTER = 4;
const QUIET_KEY = '__trawlDomQuietMs';

/**
 * Runs in every frame before the page's own scripts (context.addInitScript): a MutationObserver
 * notes the time of the last change to the document; the probe answers how long the DOM has been
 * quiet since DOMContentLoaded, or -1 before it. Non-writable, so the page cannot replace it by
 * accident; a page that means to fool it only delays or hastens its own snapshot.
 */
export const SETTLE_INIT_SCRIPT = `(() => {
  if (Object.prototype.hasOwnProperty.call(window, '${QUIET_KEY}')) return;
  let last = 0, ready = false;
  const touch = () => { last = performance.now(); };
  new MutationObserver(touch).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  document.addEventListener('DOMContentLoaded', () => { ready = true; touch(); }, { once: true });
  Object.defineProperty(window, '${QUIET_KEY}', { value: () => (ready ? performance.now() - last : -1) });
})();`;

const PROBE = `typeof window.${QUIET_KEY} === 'function' ? window.${QUIET_KEY}() : -1`;

/** What the settle loop needs to know about the page's sub-requests (requests.ts keeps it). */
export type NetworkView = {
  /** Sub-requests in flight. */
  inFlight(): number;
  /** Milliseconds since a sub-request last began or ended. */
  sinceChangeMs(now: number): number;
  /** Age of the youngest sub-request in flight, Infinity when none is. */
  youngestInFlightMs(now: number): number;
};

export type SettleWait = {
  readonly settleMs: number;
  /** performance.now() past which the page is taken as it is ('budget'). */
  readonly until: number;
  /** performance.now() of the load event, undefined until it fires. */
  readonly loadedAt: () => number | undefined;
  /** Aborted when the page's render has ended (failed): the loop stops. */
  readonly ended: AbortSignal;
};

/**
 * Polls until the page has settled. A page whose script spins never answers the DOM probe: this
 * then never returns, and the render's own timer ends the page (closing its context).
 */
export async function waitUntilSettled(page: Page, network: NetworkView, w: SettleWait): Promise<SettledBy> {
  const pollMs = Math.min(100, Math.max(20, Math.floor(w.settleMs / 5)));
  for (;;) {
    if (w.ended.aborted) throw new Error('render ended');
    let now = performance.now();
    if (now >= w.until) return 'budget';
    const loadedAt = w.loadedAt();
    const networkQuiet = network.sinceChangeMs(now) >= w.settleMs;
    if (loadedAt !== undefined && network.inFlight() === 0 && networkQuiet && now - loadedAt >= w.settleMs) return 'network-quiet';
    // An evaluation fails while a frame is being replaced; that is not quiet, and the next poll asks again.
    const domQuietMs = await page.evaluate(PROBE).then(Number, () => -1);
    now = performance.now();
    if (domQuietMs >= w.settleMs && networkQuiet && network.youngestInFlightMs(now) >= HANGING_AFTER * w.settleMs) return 'no-mutations';
    await sleep(Math.max(1, Math.min(pollMs, w.until - now)), undefined, { signal: w.ended }).catch(() => undefined);
  }
}
