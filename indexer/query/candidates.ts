/**
 * The documents that match a query, and — when there are many — a first estimate of their scores.
 *
 * A query whose rarest group is in at most `exactLimit` documents takes that group's postings and
 * checks the other groups in each candidate's vector; the caller scores them all exactly. A query
 * with more candidates runs a first pass over the impact lists (first-pass.ts): each query term
 * adds its weight × impact to a per-document sum read in sequence, so the caller scores exactly
 * only the best few hundred by that estimate. The first pass's answer is views of its arrays:
 * the caller must use them before the next query runs (synchronously).
 */
import type { ImpactLists } from '../structures/impacts.ts';
import type { SplitPostings } from '../structures/split-postings.ts';
import { ENOUGH_FULL, missable, sourceGroups } from './coverage.ts';
import { sourceFilter } from './filters.ts';
import { FirstPass, knownTermIds, type Match, type MatchReads, MAX_GROUPS } from './first-pass.ts';
import type { ParsedQuery } from './parse.ts';
import { holdsGroup, togetherIds } from './together.ts';
import type { SlotWeights } from './weights.ts';

export type { Match, MatchReads } from './first-pass.ts';

/**
 * When a query is scored candidate by candidate, and when in two passes. The defaults keep an
 * exactly scored query under ~2 ms; tests lower them to exercise both ways on small data.
 */
export type IndexTuning = {
  /** A query whose rarest word is in at most this many documents is scored exactly, candidate by candidate. */
  exactLimit: number;
  /**
   * Terms in at least this many documents get an impact list (at most exactLimit). Far below
   * exactLimit: a word being typed stands for dozens of completions, each in a few hundred pages,
   * which the first pass reads in sequence from their lists instead of a vector each (bench/index
   * at 100,000 pages: 9,739 lists instead of 1,816, 11 % more entries, 0.04 KB more heap a page;
   * "jso", 51 completions, 17–20 ms of CPU → 5–6, "compl" 11–14 → 4).
   */
  readonly headDf: number;
};
export const DEFAULT_TUNING: IndexTuning = { exactLimit: 2000, headDf: 100 };

/** Pages missing a word are read by a first pass when the words that may be missed are in more than exactLimit / PARTIAL_FIRST_PASS pages. */
const PARTIAL_FIRST_PASS = 8;

export class Candidates {
  private readonly firstPass: FirstPass;

  constructor(
    private readonly postings: Pick<SplitPostings, 'docsWith'>,
    impacts: ImpactLists,
    private readonly tuning: IndexTuning,
  ) {
    this.firstPass = new FirstPass(postings, impacts);
  }

  /**
   * The documents that match: every group (any of its terms) — or all but the bare words a long
   * query may spare (coverage.ts) —, no excluded term, and the site:, lang:, type: and topic:
   * filters if given. When nothing matches that, documents matching any term are returned and
   * `partial` is set. (A candidate missing a word it may miss is no partial match: a shard's answer
   * that is partial gives way to the others' — shards/merge.ts —, and such a candidate must not.)
   */
  match(q: ParsedQuery, weights: SlotWeights, reads: MatchReads): Match {
    const docs = reads.documents;
    const excludedIds = knownTermIds(docs, q.excluded);
    const onSource = sourceFilter(docs, q);
    const keep = (id: number) => !excludedIds.some((t) => docs.contains(id, t)) && (!onSource || onSource(id));
    if (!q.groups.length) {
      // Only filters (site:): every page they allow, best linked first.
      return { ids: onSource ? [...docs.documentIds()].filter(keep) : [], partial: false };
    }
    const { optional, maxMissing } = missable(q);
    const groups = q.groups
      .map((g, i) => ({
        terms: g,
        ids: knownTermIds(docs, g),
        df: g.reduce((n, t) => n + docs.holding(t), 0),
        optional: optional[i]!,
        together: togetherIds(q.together?.[i], (t) => docs.ownTermId(t)),
      }))
      .sort((a, b) => a.df - b.df);
    // (Every candidate holds one of these: the rarest required group, or one of the rarest that may be missed.)
    const sources = sourceGroups(groups, maxMissing);
    const sourceDf = sources.reduce((n, i) => n + groups[i]!.df, 0);
    const twoPass = groups.length <= MAX_GROUPS && docs.allDense;
    if (sourceDf > this.tuning.exactLimit && twoPass)
      return this.firstPass.run({ groups, weights, excludedIds, onSource, partialOnly: false, maxMissing, sources, reads });
    if (sourceDf > 0) {
      const filtering = groups.length > 1 || excludedIds.length > 0 || onSource !== undefined || q.together !== undefined;
      const contains = (id: number, t: number) => docs.contains(id, t);
      const holds = (id: number, g: (typeof groups)[number]) => holdsGroup(contains, id, g.ids, g.together);
      // The documents holding any term of some groups, each once (one term: its postings as they are).
      const union = (of: readonly (typeof groups)[number][]) => {
        const lists = of.flatMap((g) => g.terms.map((t) => this.postings.docsWith(t, docs.holding(t))));
        return lists.length === 1 ? lists[0]! : [...new Set(lists.flat())];
      };
      // The pages holding every group first, from the rarest's postings (as when none may be
      // missed): when they are enough, they are the candidates.
      const [rarest, ...others] = groups;
      const rarestIds = union([rarest!]);
      // (The rarest's own terms may count only together: together.ts.)
      const full = filtering ? rarestIds.filter((id) => (!rarest!.together || holds(id, rarest!)) && others.every((g) => holds(id, g)) && keep(id)) : rarestIds;
      let ids: ArrayLike<number> = full;
      if (maxMissing > 0 && full.length < ENOUGH_FULL) {
        // Many pages hold one of the words that may be missed: the first pass weighs them from the
        // impact lists, and only its best are scored exactly (scoring them all was most of such a query).
        if (twoPass && sourceDf * PARTIAL_FIRST_PASS > this.tuning.exactLimit)
          return this.firstPass.run({ groups, weights, excludedIds, onSource, partialOnly: false, maxMissing, sources, reads });
        // Groups missed by a candidate: -1 when it is not admissible (a required group, or too many).
        const missed = (id: number) => {
          let n = 0;
          for (const g of groups) {
            if (holds(id, g)) continue;
            if (!g.optional || ++n > maxMissing) return -1;
          }
          return n;
        };
        ids = union(sources.map((k) => groups[k]!)).filter((id) => missed(id) >= 0 && keep(id));
      }
      if (ids.length || q.groups.length === 1) return { ids, partial: false };
    }
    if (q.groups.length === 1) return { ids: [], partial: false };
    if (twoPass && groups.reduce((n, g) => n + g.df, 0) > this.tuning.exactLimit)
      return this.firstPass.run({ groups, weights, excludedIds, onSource, partialOnly: true, maxMissing, sources, reads });
    const any = new Set<number>();
    for (const t of q.terms) for (const id of this.postings.docsWith(t, docs.holding(t))) any.add(id);
    const ids = [...any].filter(keep);
    return { ids, partial: ids.length > 0 };
  }
}
