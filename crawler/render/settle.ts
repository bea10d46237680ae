/**
 * When is a rendered page done? Whichever comes first, never past the budget:
 *   idle           the load event has fired; no sub-request is in flight (the crawler routes every
 *                  one, so it knows) nor asked for by the page (fetch/XHR counted in the page, which
 *                  also covers the moment before the router sees one); no timer or animation frame
 *                  of settleMs or less is pending; and neither the DOM, the network nor such a
 *                  callback has stirred for idleMs (min(IDLE_MS, settleMs)). The fast path: a page
 *                  that has nothing left to do is taken at once, not settleMs later;
 *   network-quiet  the load event has fired and no sub-request has been in flight for settleMs
 *                  (a page that keeps a short timer or an animation running ends so);
 *   no-mutations   the DOM has not changed for settleMs since DOMContentLoaded, no sub-request
 *                  has begun or ended for settleMs either, and any still in flight has been so for
 *                  HANGING_AFTER × settleMs or more;
 *   budget         none came in time: the page is taken as it is.
 * `idle` waits for a timer due within settleMs, so a page that fetches its content 300 ms after
 * load is still read whole, as under the settleMs rules; one that waits longer than settleMs was
 * never waited for. The guards on no-mutations are deliberate: a page whose data calls are merely
 * slow, or many in a row, keeps a quiet DOM while it waits for its JSON, and must not be taken as an
 * empty shell; a request in flight that long is presumed to be a long-poll or a stream that will
 * never end, which is what no-mutations exists for.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { SettledBy } from './types.ts';

export const HANGING_AFTER = 4;
/** The stillness that `idle` asks for: long enough for a response's promise chain to reach the DOM, or a chained request to reach the router. */
export const IDLE_MS = 150;
const QUIET_KEY = '__trawlQuiet';

/**
 * Runs in every frame before the page's own scripts (context.addInitScript): a MutationObserver
 * notes the time of the last change to the document; setTimeout/setInterval (of `horizonMs` or
 * less), requestAnimationFrame, fetch and XHR are wrapped to count what is pending and to note when
 * one last ran. The probe answers [DOM quiet ms, activity quiet ms, pending], or -1 before
 * DOMContentLoaded. Non-writable, so the page cannot replace the probe by accident; a page that
 * means to fool it only delays or hastens its own snapshot.
 */
export function settleInitScript(horizonMs: number): string {
  return (
    `(() => {
  if (Object.prototype.hasOwnProperty.call(window, '${QUIET_KEY}')) return;
  const HORIZON = ${Math.max(0, Math.floor(horizonMs))};
  const now = () => performance.now();
  let lastDom = 0, lastActivity = 0, ready = false, requests = 0;
  const timers = new Set(), frames = new Set();
  const touch = () => { lastDom = lastActivity = now(); };
  const stir = () => { lastActivity = now(); };
  new MutationObserver(touch).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  document.addEventListener('DOMContentLoaded', () => { ready = true; touch(); }, { once: true });
  const w = window, st = w.setTimeout, ct = w.clearTimeout, si = w.setInterval, ci = w.clearInterval, ` +
    `raf = w.requestAnimationFrame, caf = w.cancelAnimationFrame, f = w.fetch, send = w.XMLHttpRequest && w.XMLHttpRequest.prototype.send;
  w.setTimeout = function (fn, ms, ...args) {
    if (typeof fn !== 'function' || !((Number(ms) || 0) <= HORIZON)) return st.call(w, fn, ms, ...args);
    const id = st.call(w, function () { timers.delete(id); stir(); return fn.apply(this, arguments); }, ms, ...args);
    timers.add(id);
    return id;
  };
  w.setInterval = function (fn, ms, ...args) {
    if (typeof fn !== 'function' || !((Number(ms) || 0) <= HORIZON)) return si.call(w, fn, ms, ...args);
    const id = si.call(w, function () { stir(); return fn.apply(this, arguments); }, ms, ...args);
    timers.add(id);
    return id;
  };
  w.clearTimeout = function (id) { timers.delete(id); return ct.call(w, id); };
  w.clearInterval = function (id) { timers.delete(id); return ci.call(w, id); };
  if (raf) {
    w.requestAnimationFrame = function (fn) {
      const id = raf.call(w, function () { frames.delete(id); stir(); return fn.apply(this, arguments); });
      frames.add(id);
      return id;
    };
    w.cancelAnimationFrame = function (id) { frames.delete(id); return caf.call(w, id); };
  }
  if (f) {
    w.fetch = function () {
      requests += 1; stir();
      let open = true;
      const done = () => { if (open) { open = false; requests -= 1; stir(); } };
      try {
        const p = f.apply(this, arguments);
        p.then(done, done);
        return p;
      } catch (e) { done(); throw e; }
    };
  }
  if (send) {
    w.XMLHttpRequest.prototype.send = function () {
      requests += 1; stir();
      let open = true;
      this.addEventListener('loadend', () => { if (open) { open = false; requests -= 1; stir(); } });
      try { return send.apply(this, arguments); } catch (e) { if (open) { open = false; requests -= 1; } throw e; }
    };
  }
  Object.defineProperty(w, '${QUIET_KEY}', { value: () => (ready ? [now() - lastDom, now() - lastActivity, requests + timers.size + frames.size] : -1) });
})();`
  );
}

const PROBE = `typeof window.${QUIET_KEY} === 'function' ? window.${QUIET_KEY}() : -1`;
type Probe = { domQuietMs: number; activityQuietMs: number; pending: number };
const NOT_READY: Probe = { domQuietMs: -1, activityQuietMs: -1, pending: Infinity };

function probe(page: Page): Promise<Probe> {
  return page.evaluate(PROBE).then(
    (v) => (Array.isArray(v) ? { domQuietMs: Number(v[0]), activityQuietMs: Number(v[1]), pending: Number(v[2]) } : NOT_READY),
    () => NOT_READY, // an evaluation fails while a frame is being replaced; that is not quiet, and the next poll asks again
  );
}

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
 * then never returns, and the render's own timer ends the page.
 */
export async function waitUntilSettled(page: Page, network: NetworkView, w: SettleWait): Promise<SettledBy> {
  const idleMs = Math.min(IDLE_MS, w.settleMs);
  const pollMs = Math.min(100, Math.max(20, Math.floor(idleMs / 3)));
  for (;;) {
    if (w.ended.aborted) throw new Error('render ended');
    let now = performance.now();
    if (now >= w.until) return 'budget';
    const loadedAt = w.loadedAt();
    const networkQuiet = network.sinceChangeMs(now) >= w.settleMs;
    if (loadedAt !== undefined && network.inFlight() === 0 && networkQuiet && now - loadedAt >= w.settleMs) return 'network-quiet';
    // The page is asked only when its answer could settle it: while a request is in flight (and
    // young), or the network stirred less than idleMs ago, neither idle nor no-mutations can be
    // true, and each probe costs a round trip through the browser (CPU the other pages need).
    const idleNetwork = loadedAt !== undefined && network.inFlight() === 0 && network.sinceChangeMs(now) >= idleMs;
    const hangingNetwork = networkQuiet && network.youngestInFlightMs(now) >= HANGING_AFTER * w.settleMs;
    if (!idleNetwork && !hangingNetwork) {
      await sleep(Math.max(1, Math.min(pollMs, w.until - now)), undefined, { signal: w.ended }).catch(() => undefined);
      continue;
    }
    const p = await probe(page);
    now = performance.now();
    const netQuietMs = network.sinceChangeMs(now);
    if (loadedAt !== undefined && network.inFlight() === 0 && p.pending === 0 && netQuietMs >= idleMs && p.activityQuietMs >= idleMs) return 'idle';
    if (p.domQuietMs >= w.settleMs && network.sinceChangeMs(now) >= w.settleMs && network.youngestInFlightMs(now) >= HANGING_AFTER * w.settleMs)
      return 'no-mutations';
    // Sleep no longer than the idle window still needs (a page near idle is taken soon after), no shorter than a poll's worth.
    const stillNeeded = idleMs - Math.min(netQuietMs, Math.max(0, p.activityQuietMs));
    await sleep(Math.max(1, Math.min(pollMs, Math.max(pollMs / 2, stillNeeded), w.until - now)), undefined, { signal: w.ended }).catch(() => undefined);
  }
}
