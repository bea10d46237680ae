/**
 * Reads asked for one key at a time, answered many keys at once: the keys asked for within one turn
 * of the event loop are read together by one call of `many` — on a database, one statement instead
 * of a round trip a key. Callers that become ready together ask together: the pages of one group
 * commit reach the index in the same turn, and each asks for its anchor text (store/postgres/anchors.ts).
 *
 * The batch is read on the next turn (setImmediate), so a caller waits one turn more than a read of
 * its own would. A key asked twice in a turn is read once. A key the batch's answer lacks is read by
 * itself (`one`); a batch that fails fails each of its callers, as their own reads would have.
 */
export class BatchedReads<K, V> {
  private asked = new Map<K, Waiter<V>[]>();
  private scheduled = false;

  constructor(
    private readonly many: (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>,
    private readonly one: (key: K) => Promise<V>,
    /** Keys read by one call of `many` at most (the rest in further calls). */
    private readonly maxKeys = 64,
  ) {}

  get(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      const waiting = this.asked.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.asked.set(key, [{ resolve, reject }]);
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.read());
    });
  }

  private read(): void {
    this.scheduled = false;
    const asked = this.asked;
    this.asked = new Map();
    const keys = [...asked.keys()];
    for (let i = 0; i < keys.length; i += this.maxKeys) {
      const some = keys.slice(i, i + this.maxKeys);
      // (One key: read by `one`, the caller's read of a single key.)
      const values = some.length === 1 ? this.one(some[0]!).then((v) => new Map([[some[0]!, v]])) : this.many(some);
      values.then(
        (found) => {
          for (const key of some) {
            const waiters = asked.get(key)!;
            const value = found.get(key);
            if (value !== undefined || found.has(key)) for (const w of waiters) w.resolve(value!);
            else
              this.one(key).then(
                (v) => {
                  for (const w of waiters) w.resolve(v);
                },
                (e: unknown) => {
                  for (const w of waiters) w.reject(e);
                },
              );
          }
        },
        (e: unknown) => {
          for (const key of some) for (const w of asked.get(key)!) w.reject(e);
        },
      );
    }
  }
}

type Waiter<V> = { readonly resolve: (v: V) => void; readonly reject: (e: unknown) => void };
