/**
 * How pages spell a term. The index holds stems ("recoveri", "configur"), which are not words: a
 * correction or a completion is shown as a page that holds it writes it — of its spellings there,
 * the one closest to what was typed ("configu" → "configure", "replicati" → "replication"). The
 * spellings of a term are read from one page and kept: suggestions as you type ask for the same
 * few terms again and again.
 */
import { editDistance } from '../../lib/edit-distance.ts';
import type { SplitPostings } from '../structures/split-postings.ts';
import type { QueryDocuments } from './documents.ts';
import { locate } from './locate.ts';

/** The body is read this far for spellings. */
const BODY_CHARS = 100_000;
/** Spellings kept of one term. */
const MAX_SPELLINGS = 16;

/** What a query reads of the spellings (a shard notes them instead: shards/shard-node.ts `answerSuggest`). */
export type SpellingLookup = Pick<Spellings, 'closest'>;

/** Spellings of terms, read from one page each and kept (bounded: the oldest go first). */
export class Spellings {
  private readonly known = new Map<string, readonly string[]>();

  constructor(
    private readonly postings: Pick<SplitPostings, 'docsWith'>,
    private readonly max = 10_000,
  ) {}

  /** The spelling of `term` closest to `typed`, or undefined when no page spells it. */
  async closest(term: string, typed: string, docs: QueryDocuments): Promise<string | undefined> {
    let best: string | undefined;
    let bestDistance = Infinity;
    for (const s of await this.of(term, docs)) {
      const d = editDistance(s, typed, 16);
      if (d < bestDistance) [best, bestDistance] = [s, d];
    }
    return best;
  }

  /** The term's spellings in the first page that holds it (title, headings, description, text). */
  private async of(term: string, docs: QueryDocuments): Promise<readonly string[]> {
    const cached = this.known.get(term);
    if (cached) return cached;
    const [id] = this.postings.docsWith(term, 1);
    const d = id === undefined ? undefined : await docs.get(id);
    const all = new Set<string>();
    for (const text of d ? [d.title, d.headings.join('\n'), d.description, d.text.length > BODY_CHARS ? d.text.slice(0, BODY_CHARS) : d.text] : []) {
      const o = locate(text, [term]);
      for (const i of o.at) if (all.size < MAX_SPELLINGS) all.add(text.slice(o.starts[i], o.ends[i]).toLowerCase());
    }
    const found = [...all];
    // (A page removed since may leave none: asked again next time.)
    if (found.length) {
      if (this.known.size >= this.max) this.known.delete(this.known.keys().next().value!);
      this.known.set(term, found);
    }
    return found;
  }
}
