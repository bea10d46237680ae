/**
 * The arrays a first pass (first-pass.ts) works in, by dense document id: made once and grown with
 * the index, all zero between queries (the pass sets back what it touched).
 */

/** The arrays a first pass works in, by dense document id. */
export type Scratch = {
  /** Per document: its terms' parts summed, the bits of its groups (and EXCLUDED, SEEN, OWN), its terms in the title. */
  readonly acc: Float64Array;
  readonly mask: Uint32Array;
  readonly titles: Uint8Array;
  /** A query word with alternatives: each document's best of them, folded into `acc` and `titles` after. */
  readonly best: Float64Array;
  readonly titled: Uint8Array;
  /** The candidates found and their estimates (each document once at most). */
  readonly ids: Uint32Array;
  readonly estimates: Float64Array;
};

export const scratchOf = (size: number): Scratch => ({
  acc: new Float64Array(size),
  mask: new Uint32Array(size),
  titles: new Uint8Array(size),
  best: new Float64Array(size),
  titled: new Uint8Array(size),
  ids: new Uint32Array(size),
  estimates: new Float64Array(size),
});
