/**
 * One 'abort' listener per caller's signal, however many pages wait or render under it: the crawl
 * hands the renderer its one stop signal for every page, and a listener per page set Node warning
 * (MaxListenersExceededWarning, 11 listeners) on every crawl with more than ten pages queued.
 */
export class AbortFanout {
  readonly #bySignal = new Map<AbortSignal, { readonly callbacks: Set<() => void>; readonly listener: () => void }>();

  /** Calls `fn` once when `signal` aborts (at once if it has); returns the way to call it off. */
  on(signal: AbortSignal | undefined, fn: () => void): () => void {
    if (signal === undefined) return () => undefined;
    if (signal.aborted) {
      queueMicrotask(fn);
      return () => undefined;
    }
    let entry = this.#bySignal.get(signal);
    if (entry === undefined) {
      const callbacks = new Set<() => void>();
      const listener = () => {
        this.#bySignal.delete(signal);
        for (const callback of callbacks) callback();
      };
      entry = { callbacks, listener };
      this.#bySignal.set(signal, entry);
      signal.addEventListener('abort', listener, { once: true });
    }
    const { callbacks, listener } = entry;
    callbacks.add(fn);
    return () => {
      callbacks.delete(fn);
      if (callbacks.size === 0 && this.#bySignal.get(signal) === entry) {
        this.#bySignal.delete(signal);
        signal.removeEventListener('abort', listener);
      }
    };
  }
}
