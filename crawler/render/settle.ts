/**
 * When is a rendered page done? Whichever comes first, never past the budget:
 *   idle           the load event has fired; no sub-request is in flight (the crawler routes every
 *                  one, so it knows) nor asked for by the page (fetch/XHR counted in the page from the
 *                  call until their answer and its body were handed to the page's code, a task later);
 *                  no timer, idle callback or animation frame of settleMs or less is pending; and
 *                  neither the DOM, the network nor such a callback has stirred for idleMs
 *                  (min(IDLE_MS, settleMs)). After a response the page does not count itself (a
 *                  script, a stylesheet, a frame), the network must have been still for
 *                  UNCOUNTED_IDLE_MS as well, unless the page has seen as many load or error events
 *                  of such elements as the router answered such requests (then each was handled).
 *                  The fast path: a page that has nothing left to do is taken at once, not settleMs
 *                  later, and its DOM is read in the same call into the page;
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
 * What idleMs of stillness still covers: work the page hands on in ways not counted — a message to
 * a MessageChannel or window (React's scheduler; noted as a stir, not as pending), a stream read
 * chunk by chunk, a worker's answer, IndexedDB; and the moment between a response reaching the page
 * and its handler running.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { SettledBy } from './types.ts';

export const HANGING_AFTER = 4;
/**
 * The stillness that `idle` asks for. Short, since what follows a fetch is counted in the page until
 * its code has run (150 ms before that was counted; bench/README.md, issue 39).
 */
export const IDLE_MS = 50;
/** The stillness after a response the page does not count itself (a script may still be compiling, a frame loading). */
export const UNCOUNTED_IDLE_MS = 150;
const QUIET_KEY = '__trawlQuiet';

/**
 * Runs in every frame before the page's own scripts (context.addInitScript): a MutationObserver
 * notes the time of the last change to the document; setTimeout/setInterval (of `horizonMs` or
 * less), requestIdleCallback, requestAnimationFrame, fetch (and the reading of its answer's body)
 * and XHR are wrapped to count what is pending and to note when one last ran. A fetch or a body
 * read stays pending until a task after it settled, so that whatever its promise chain does next
 * (another fetch, a timer, the DOM) is seen before it stops counting; postMessage is noted as a
 * stir. Load and error events of scripts, stylesheets and frames are counted (`loads`).
 * The probe `(idleMs, needLoads, maxChars)` answers [DOM quiet ms, activity quiet ms, pending,
 * loads], or -1 before DOMContentLoaded; with maxChars > 0, and when the page itself is idle
 * (nothing pending, still for idleMs, and needLoads < 0 or loads ≥ needLoads), a fifth item: the
 * document serialized as page.content() does, or its length when over maxChars — the snapshot in
 * the same call. Non-writable, and the serializers are the ones found before the page ran, so the
 * page cannot replace them by accident; a page that means to fool it only delays or hastens (or
 * misleads) its own snapshot.
 */
export function settleInitScript(horizonMs: number): string {
  return (
    `(() => {
  if (Object.prototype.hasOwnProperty.call(window, '${QUIET_KEY}')) return;
  const HORIZON = ${Math.max(0, Math.floor(horizonMs))};
  const now = () => performance.now();
  let lastDom = 0, lastActivity = 0, ready = false, requests = 0, loads = 0;
  const timers = new Set(), frames = new Set(), idles = new Set();
  const touch = () => { lastDom = lastActivity = now(); };
  const stir = () => { lastActivity = now(); };
  new MutationObserver(touch).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  document.addEventListener('DOMContentLoaded', () => { ready = true; touch(); }, { once: true });
  const w = window, st = w.setTimeout, ct = w.clearTimeout, si = w.setInterval, ci = w.clearInterval, ` +
    `raf = w.requestAnimationFrame, caf = w.cancelAnimationFrame, ric = w.requestIdleCallback, cic = w.cancelIdleCallback, ` +
    `f = w.fetch, send = w.XMLHttpRequest && w.XMLHttpRequest.prototype.send;
  const outer = Object.getOwnPropertyDescriptor(Element.prototype, 'outerHTML').get, XS = w.XMLSerializer, ser = XS.prototype.serializeToString;
  const counted = (tag, el) => tag === 'SCRIPT' || tag === 'IFRAME' || tag === 'FRAME' || (tag === 'LINK' && /\\bstylesheet\\b/i.test(el.rel || ''));
  const loaded = (e) => { const t = e.target; if (t && t.tagName && counted(t.tagName, t)) { loads += 1; stir(); } };
  document.addEventListener('load', loaded, true);
  document.addEventListener('error', loaded, true);
  // One request (or body read) begun: the returned function ends it a task later, once its callbacks ran.
  const begin = () => {
    requests += 1; stir();
    let open = true;
    return () => { if (open) { open = false; st.call(w, () => { requests -= 1; stir(); }, 0); } };
  };
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
  if (ric) {
    w.requestIdleCallback = function (fn, opts) {
      if (typeof fn !== 'function') return ric.call(w, fn, opts);
      const id = ric.call(w, function () { idles.delete(id); stir(); return fn.apply(this, arguments); }, opts);
      idles.add(id);
      return id;
    };
    w.cancelIdleCallback = function (id) { idles.delete(id); return cic.call(w, id); };
  }
  for (const o of [w, w.MessagePort && w.MessagePort.prototype]) {
    const pm = o && o.postMessage;
    if (pm) o.postMessage = function () { stir(); return pm.apply(this, arguments); };
  }
  // (A call answering a promise, pending from the call until the promise settles.)
  const pendingWhile = (call) => function () {
    const done = begin();
    try {
      const p = call.apply(this, arguments);
      p.then(done, done);
      return p;
    } catch (e) { done(); throw e; }
  };
  if (f) w.fetch = pendingWhile(f);
  const R = w.Response && w.Response.prototype;
  for (const name of ['json', 'text', 'arrayBuffer', 'blob', 'formData']) {
    const read = R && R[name];
    if (typeof read === 'function') R[name] = pendingWhile(read);
  }
  if (send) {
    w.XMLHttpRequest.prototype.send = function () {
      const done = begin();
      this.addEventListener('loadend', done);
      try { return send.apply(this, arguments); } catch (e) { done(); throw e; }
    };
  }
  const snapshot = (max) => {
    let h = '';
    const d = document.doctype, de = document.documentElement;
    if (d) h = ser.call(new XS(), d);
    if (de) h += outer.call(de);
    return h.length > max ? h.length : h;
  };
  Object.defineProperty(w, '${QUIET_KEY}', { value: (idleMs, needLoads, maxChars) => {
    if (!ready) return -1;
    const t = now(), pending = requests + timers.size + frames.size + idles.size, out = [t - lastDom, t - lastActivity, pending, loads];
    if (maxChars > 0 && pending === 0 && t - lastActivity >= idleMs && (needLoads < 0 || loads >= needLoads)) out.push(snapshot(maxChars));
    return out;
  } });
})();`
  );
}

type Probe = { domQuietMs: number; activityQuietMs: number; pending: number; loads: number; snapshot?: string | number };
const NOT_READY: Probe = { domQuietMs: -1, activityQuietMs: -1, pending: Infinity, loads: 0 };

/** Asks the page how quiet it is; with maxChars > 0, for its DOM too should it be idle (see settleInitScript). */
function probe(page: Page, idleMs: number, needLoads: number, maxChars: number): Promise<Probe> {
  const call = `typeof window.${QUIET_KEY} === 'function' ? window.${QUIET_KEY}(${idleMs}, ${needLoads}, ${maxChars}) : -1`;
  return page.evaluate(call).then(
    (v) =>
      Array.isArray(v)
        ? {
            domQuietMs: Number(v[0]),
            activityQuietMs: Number(v[1]),
            pending: Number(v[2]),
            loads: Number(v[3]),
            ...(typeof v[4] === 'string' || typeof v[4] === 'number' ? { snapshot: v[4] } : {}),
          }
        : NOT_READY,
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
  /** Milliseconds since a sub-request the page does not count itself (a script, a stylesheet, a frame) last ended or was refused. */
  sinceUncountedMs(now: number): number;
  /** How many such sub-requests have ended or been refused. */
  uncountedEnded(): number;
};

export type SettleWait = {
  readonly settleMs: number;
  /** performance.now() past which the page is taken as it is ('budget'). */
  readonly until: number;
  /** performance.now() of the load event, undefined until it fires. */
  readonly loadedAt: () => number | undefined;
  /** Aborted when the page's render has ended (failed): the loop stops. */
  readonly ended: AbortSignal;
  /** With `idle`, the DOM is read in the probe that found it idle: serialized, or its length when over this many characters. */
  readonly maxChars: number;
};

/** How the page settled; with `idle`, its DOM as read then (or the length it was, when too large). */
export type Settled = { readonly by: SettledBy; readonly snapshot?: string | number };

/**
 * Polls until the page has settled. A page whose script spins never answers the DOM probe: this
 * then never returns, and the render's own timer ends the page.
 */
export async function waitUntilSettled(page: Page, network: NetworkView, w: SettleWait): Promise<Settled> {
  const idleMs = Math.min(IDLE_MS, w.settleMs);
  const uncountedIdleMs = Math.min(UNCOUNTED_IDLE_MS, w.settleMs);
  const pollMs = Math.min(100, Math.max(20, Math.floor(idleMs / 3)));
  for (;;) {
    if (w.ended.aborted) throw new Error('render ended');
    let now = performance.now();
    if (now >= w.until) return { by: 'budget' };
    const loadedAt = w.loadedAt();
    const networkQuiet = network.sinceChangeMs(now) >= w.settleMs;
    if (loadedAt !== undefined && network.inFlight() === 0 && networkQuiet && now - loadedAt >= w.settleMs) return { by: 'network-quiet' };
    // The page is asked only when its answer could settle it: while a request is in flight (and
    // young), or the network stirred less than idleMs ago, neither idle nor no-mutations can be
    // true, and each probe costs a round trip through the browser (CPU the other pages need).
    const idleNetwork = loadedAt !== undefined && network.inFlight() === 0 && network.sinceChangeMs(now) >= idleMs;
    const hangingNetwork = networkQuiet && network.youngestInFlightMs(now) >= HANGING_AFTER * w.settleMs;
    if (!idleNetwork && !hangingNetwork) {
      await sleep(Math.max(1, Math.min(pollMs, w.until - now)), undefined, { signal: w.ended }).catch(() => undefined);
      continue;
    }
    // Responses the page does not count: waited for, unless the page has seen each of them handled.
    const ended = network.uncountedEnded();
    const needLoads = network.sinceUncountedMs(now) >= uncountedIdleMs ? -1 : ended;
    const p = await probe(page, idleMs, needLoads, idleNetwork ? w.maxChars : 0);
    now = performance.now();
    const netQuietMs = network.sinceChangeMs(now);
    const handled = network.sinceUncountedMs(now) >= uncountedIdleMs || (network.uncountedEnded() === ended && p.loads >= ended);
    if (loadedAt !== undefined && network.inFlight() === 0 && p.pending === 0 && netQuietMs >= idleMs && p.activityQuietMs >= idleMs && handled)
      // (A request begun during the probe has made netQuietMs short: then the snapshot is not taken.)
      return p.snapshot === undefined ? { by: 'idle' } : { by: 'idle', snapshot: p.snapshot };
    if (p.domQuietMs >= w.settleMs && network.sinceChangeMs(now) >= w.settleMs && network.youngestInFlightMs(now) >= HANGING_AFTER * w.settleMs)
      return { by: 'no-mutations' };
    // Sleep no longer than the idle window still needs (a page near idle is taken soon after), no shorter than a poll's worth.
    const stillNeeded = idleMs - Math.min(netQuietMs, Math.max(0, p.activityQuietMs));
    await sleep(Math.max(1, Math.min(pollMs, Math.max(pollMs / 2, stillNeeded), w.until - now)), undefined, { signal: w.ended }).catch(() => undefined);
  }
}
