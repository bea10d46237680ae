/** The contract of the search's levers: the synonyms and rules as last put, their history, a version that grows. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CurationChange, SearchRules } from '../../model/index.ts';
import { MAX_CURATION_HISTORY } from '../curation.ts';
import { T0, withStore, type StoreFactory } from './harness.ts';

const RULES: SearchRules = {
  queries: [
    { match: { query: 'kill query' }, pin: ['http://e.org/cancel', 'http://e.org/kill'], hide: [] },
    { match: { contains: ['vacuum', 'full'] }, pin: [], hide: ['http://e.org/old-vacuum'] },
    { match: { query: 'ツール' }, pin: ['http://e.org/ja/tools'], hide: ['http://e.org/tools?lang=ja', 'http://e.org/x'] },
  ],
  prefixes: [
    { prefix: 'http://e.org/docs/', factor: 2.5 },
    { prefix: 'http://e.org/archive/', factor: 0.25 },
  ],
};

const synonyms = (at: number, lines: string[], by = 'ab12cd'): CurationChange => ({ at, what: 'synonyms', by, value: lines });
const rules = (at: number, value: SearchRules, by = 'ab12cd'): CurationChange => ({ at, what: 'rules', by, value });

export function curationContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe("the search's levers (synonyms, rules)", () => {
    it(
      'answers nothing on a store where none was ever put, at version 0',
      test(async (s) => {
        assert.equal(s.curation.writable, true);
        assert.equal(await s.curation.synonyms(), undefined);
        assert.equal(await s.curation.rules(), undefined);
        assert.deepEqual(await s.curation.history(10), []);
        assert.equal(await s.curation.version(), 0);
      }),
    );

    it('keeps the synonyms and the rules as last put, each with its time, through a reopening', async () => {
      const s = await factory.fresh();
      let again = s;
      try {
        // (Quotes, arrows, non-ASCII and a NUL come back as they went: the store does not parse them.)
        const lines = ['k8s, kubernetes', '"long running" => statement_timeout', 'ツール, tool', 'odd\u0000line'];
        await s.curation.put(synonyms(T0, ['old, older']));
        await s.curation.put(synonyms(T0 + 1, lines));
        await s.curation.put(rules(T0 + 2, RULES));
        assert.deepEqual(await s.curation.synonyms(), { lines, at: T0 + 1 });
        await s.close();
        again = await factory.reopen(s);
        assert.deepEqual(await again.curation.synonyms(), { lines, at: T0 + 1 });
        assert.deepEqual(await again.curation.rules(), { rules: RULES, at: T0 + 2 });
        // Emptied is not unset: an empty set is a set.
        await again.curation.put(rules(T0 + 3, { queries: [], prefixes: [] }));
        await again.curation.put(synonyms(T0 + 4, []));
        assert.deepEqual(await again.curation.rules(), { rules: { queries: [], prefixes: [] }, at: T0 + 3 });
        assert.deepEqual(await again.curation.synonyms(), { lines: [], at: T0 + 4 });
      } finally {
        await again.close();
      }
    });

    it(
      'refuses a value that does not fit what it changes, and changes nothing',
      test(async (s) => {
        await assert.rejects(s.curation.put({ at: T0, what: 'synonyms', by: 'x', value: RULES }), TypeError);
        await assert.rejects(s.curation.put({ at: T0, what: 'rules', by: 'x', value: ['a, b'] }), TypeError);
        assert.equal(await s.curation.version(), 0);
        assert.deepEqual(await s.curation.history(10), []);
      }),
    );

    it(
      'lists the changes newest first, with who made each and what it became: of both levers or of one, at most as many as asked',
      test(async (s) => {
        const changes = [
          synonyms(T0, ['a, b'], 'config'),
          rules(T0 + 10, RULES, 'ab12cd'),
          synonyms(T0 + 20, ['a, b', 'c => d'], 'ef34gh'),
          rules(T0 + 30, { queries: [], prefixes: RULES.prefixes }, 'ab12cd'),
          // (Two changes at one time keep the order they were put in.)
          synonyms(T0 + 30, ['e, f'], 'ab12cd'),
        ];
        for (const c of changes) await s.curation.put(c);
        const newest = [...changes].reverse();
        assert.deepEqual(await s.curation.history(10), newest);
        assert.deepEqual(await s.curation.history(2), newest.slice(0, 2));
        assert.deepEqual(
          await s.curation.history(10, 'synonyms'),
          newest.filter((c) => c.what === 'synonyms'),
        );
        assert.deepEqual(await s.curation.history(1, 'rules'), [changes[3]]);
        assert.deepEqual(await s.curation.synonyms(), { lines: ['e, f'], at: T0 + 30 });
      }),
    );

    it(
      'moves its version forward with every put, and not with a read',
      test(async (s) => {
        const seen = [await s.curation.version()];
        await s.curation.put(synonyms(T0, ['a, b']));
        seen.push(await s.curation.version());
        await s.curation.put(rules(T0, RULES));
        seen.push(await s.curation.version());
        // (The same value again is a change still: someone pulled the lever.)
        await s.curation.put(rules(T0, RULES));
        seen.push(await s.curation.version());
        await s.curation.rules();
        await s.curation.history(5);
        seen.push(await s.curation.version());
        for (let i = 1; i < 4; i++) assert.ok(seen[i]! > seen[i - 1]!, `version ${seen[i]} after ${seen[i - 1]}`);
        assert.equal(seen[4], seen[3]);
      }),
    );

    it(
      'keeps at most MAX_CURATION_HISTORY changes a lever, the latest, and the version still grows',
      test(async (s) => {
        const puts = MAX_CURATION_HISTORY + 5;
        await s.curation.put(rules(T0, RULES, 'first'));
        let before = 0;
        for (let i = 0; i < puts; i++) {
          await s.curation.put(synonyms(T0 + i, [`a${i}, b`]));
          if (i === puts - 2) before = await s.curation.version();
        }
        const kept = await s.curation.history(puts + 10, 'synonyms');
        assert.equal(kept.length, MAX_CURATION_HISTORY);
        assert.deepEqual(kept[0], synonyms(T0 + puts - 1, [`a${puts - 1}, b`]));
        assert.deepEqual(kept.at(-1), synonyms(T0 + 5, ['a5, b']));
        assert.ok((await s.curation.version()) > before);
        // The other lever's history is its own: its one change is still there.
        assert.deepEqual(await s.curation.history(10, 'rules'), [rules(T0, RULES, 'first')]);
        assert.equal((await s.curation.history(puts + 10)).length, MAX_CURATION_HISTORY + 1);
      }),
    );
  });
}
