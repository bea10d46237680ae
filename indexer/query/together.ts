/**
 * Terms that stand for a query word only together: the words of a synonym of several words
 * (synonyms.ts, `kill => "terminate backend"`). A page holding `terminate` alone holds no synonym
 * of `kill`: the term neither makes it hold the word's group (matching: candidates.ts, the first
 * pass) nor scores for the word (bm25f.ts `slotScorer`, explain.ts) — unless the page also holds
 * every other term of the entry. Read off the pages' vectors, as the rest of matching and scoring.
 */

/** Per group of a query: its terms that count only with others, each with the sets of terms it needs (all of one set). */
export type GroupTogether = ReadonlyMap<string, readonly (readonly string[])[]>;

/** The same by term id: a term whose every set holds a term unknown here never counts. */
export type TogetherIds = ReadonlyMap<number, readonly (readonly number[])[]>;

/** A term of a group: with `together`, the other terms a page must hold for it to count. */
type Member = { readonly term: string; readonly together?: readonly string[] };

/** Which of a group's terms count only together with others: none of those it also holds plainly (the word itself, another alternative). */
export function groupTogether(members: readonly Member[]): GroupTogether | undefined {
  const plain = new Set(members.filter((m) => !m.together).map((m) => m.term));
  const out = new Map<string, (readonly string[])[]>();
  for (const m of members) if (m.together && !plain.has(m.term)) out.set(m.term, [...(out.get(m.term) ?? []), m.together]);
  return out.size ? out : undefined;
}

/** A group's `together` by term id (`termId`: this index's ids; undefined for a term it does not know). */
export function togetherIds(together: GroupTogether | undefined, termId: (term: string) => number | undefined): TogetherIds | undefined {
  if (!together) return undefined;
  const out = new Map<number, number[][]>();
  for (const [term, sets] of together) {
    const t = termId(term);
    if (t === undefined) continue;
    const ids = sets.map((s) => s.map(termId)).filter((s): s is number[] => s.every((x) => x !== undefined));
    out.set(t, ids);
  }
  return out;
}

/** Whether document `id` holds one of a group's terms `ids` that counts there (`contains`: this index's). */
export function holdsGroup(contains: (id: number, t: number) => boolean, id: number, ids: readonly number[], together: TogetherIds | undefined): boolean {
  return ids.some((t) => contains(id, t) && (!together?.has(t) || together.get(t)!.some((s) => s.every((x) => contains(id, x)))));
}

/** A group as matching reads it: its terms' ids (this index's), and those that count only together. */
export type HeldGroup = { readonly ids?: readonly number[]; readonly together?: TogetherIds };

/**
 * For the first pass (its masks: a group's bit set by any of its terms): `(id, mask)` → the mask
 * without the bits of the groups that document holds only terms of that cannot count there.
 * Undefined when no group has such terms.
 */
export function heldBits(groups: readonly HeldGroup[], contains: (id: number, t: number) => boolean): ((id: number, mask: number) => number) | undefined {
  const some = groups.map((g, bit) => ({ g, bit })).filter(({ g }) => g.together?.size);
  if (!some.length) return undefined;
  return (id, mask) => {
    let m = mask;
    for (const { g, bit } of some) if (m & (1 << bit) && !holdsGroup(contains, id, g.ids ?? [], g.together)) m &= ~(1 << bit);
    return m;
  };
}
