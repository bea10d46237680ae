/**
 * The term dictionary: each term's id (interned as it first arrives, never taken back) and how many
 * indexed documents hold it, its document frequency. Written by IndexContents (index-contents.ts)
 * as documents come and go. Read as it stands by the structures kept beside it — the postings, the
 * impact lists, the vocabulary — and by a query through its view (index-view.ts), which answers as
 * of the query's start.
 */
export class TermDictionary {
  private readonly ids = new Map<string, number>();
  private readonly terms: string[] = [];
  /** By term id (zeros past the last term): a typed array, not a number per Map entry. */
  private df: Int32Array = new Int32Array(1024);

  get termCount(): number {
    return this.terms.length;
  }

  termId(term: string): number | undefined {
    return this.ids.get(term);
  }

  /** A term by its id ('' for an id it never gave). */
  term(termId: number): string {
    return this.terms[termId] ?? '';
  }

  docFrequencyOf(termId: number): number {
    return this.df[termId] ?? 0;
  }

  docFrequency(term: string): number {
    const id = this.ids.get(term);
    return id === undefined ? 0 : this.df[id]!;
  }

  /** The term's id, given it now if it has none. */
  intern(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.ids.set(term, id);
      if (id >= this.df.length) {
        const bigger = new Int32Array(this.df.length * 2);
        bigger.set(this.df);
        this.df = bigger;
      }
    }
    return id;
  }

  /** A document's terms counted in (`by` 1) or out (−1). */
  count(termIds: Uint32Array, by: 1 | -1): void {
    for (const id of termIds) this.df[id]! += by;
  }

  /** Every term, by id (for a flush: the dictionary only grows, so the array is a snapshot of its first `length`). */
  all(): readonly string[] {
    return this.terms;
  }
}
