import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ClassifierError } from './classifier.ts';
import { follows, judge, loadFocus, SEED_TUNNEL } from './focus.ts';

const dir = mkdtempSync(join(tmpdir(), 'trawl-classifier-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const topicFile = file('coins.txt', '10: coin=coins\n5: medal=medals\n');
const page = (url: string, text: string) => ({ url, title: '', description: '', headings: [], text });

describe('the classifier', () => {
  it('decides by the cutoff, and names the classes that scored', async () => {
    const focus = await loadFocus({ topicFile, cutoff: 15 });
    assert.match(focus.classifier.name, /^topic coins \(plain scorer, cutoff 15\)$/);
    const yes = await judge(focus, page('http://a.test/1', 'coin coin medal'));
    assert.deepEqual([yes.score, yes.relevant, yes.classes.map((c) => c.name)], [25, true, ['coins', 'medals']]);
    const no = await judge(focus, page('http://a.test/2', 'coin'));
    assert.deepEqual([no.score, no.relevant], [10, false]);
    assert.equal((await judge(focus, page('http://a.test/3', 'coin medal'))).relevant, true, 'a score equal to the cutoff is relevant');
  });

  it('holds pages of sitesOK hosts (and their subdomains) relevant whatever they score', async () => {
    const focus = await loadFocus({ topicFile, sitesOK: ['Coins.example'] });
    const v = await judge(focus, page('http://www.coins.example/x', 'nothing here'));
    assert.deepEqual([v.score, v.relevant, v.siteOK], [0, true, true]);
    assert.equal((await judge(focus, page('http://notcoins.example/x', 'nothing'))).relevant, false);
  });

  it('follows the links of relevant pages, and of pages that are not only through focus.tunnel of them in a row', async () => {
    const focus = await loadFocus({ topicFile, tunnel: 2 });
    assert.deepEqual(follows(focus, true, 5), { follow: true, tunnel: 0 });
    assert.deepEqual(follows(focus, false, 0), { follow: true, tunnel: 1 });
    assert.deepEqual(follows(focus, false, 1), { follow: true, tunnel: 2 });
    assert.deepEqual(follows(focus, false, 2), { follow: false, tunnel: 3 });
    const strict = await loadFocus({ topicFile, tunnel: 0 });
    assert.equal(follows(strict, false, 0).follow, false);
    assert.deepEqual(follows(strict, false, SEED_TUNNEL), { follow: true, tunnel: 0 }, "a seed's links are always followed");
  });

  it('plugs in a user module: given the topic and cutoff, its answers are checked and completed', async () => {
    const mod = file(
      'mine.mjs',
      `export default ({ topic, cutoff }) => ({
        classify(page) {
          if (page.url.endsWith('/bad')) return { score: 'high' };
          if (page.url.endsWith('/slow')) return new Promise(() => {});
          const score = page.text.length;
          return { score, classes: score > cutoff ? [topic.classes[0], { name: 'Long', score: 1 }] : [] };
        },
      });`,
    );
    const focus = await loadFocus({ topicFile, classifier: mod, cutoff: 5 });
    assert.equal(focus.classifier.name, `module ${mod}`);
    const v = await judge(focus, page('http://a.test/x', 'abcdefgh'));
    assert.deepEqual(
      [v.score, v.relevant, v.classes],
      [
        8,
        true,
        [
          { name: 'coins', score: 8 },
          { name: 'long', score: 1 },
        ],
      ],
    );
    assert.equal((await judge(focus, page('http://a.test/x', 'abc'))).relevant, false, 'no "relevant": score against the cutoff');
    await assert.rejects(judge(focus, page('http://a.test/bad', '')), /returned a score that is not a finite number \(high\)/);
    await assert.rejects(judge(focus, page('http://a.test/slow', ''), 50), /took more than 0.05 s/);
  });

  it('says what is wrong with a module that cannot be a classifier', async () => {
    const cases: [string, RegExp][] = [
      ['export const x = 1;', /must export .* a classify\(page\) method/],
      ['export default () => { throw new Error("no model"); };', /failed to start: no model/],
      ['export default {', /cannot load the classifier module/],
    ];
    for (const [i, [code, problem]] of cases.entries()) {
      await assert.rejects(loadFocus({ classifier: file(`bad${i}.mjs`, code) }), (e: unknown) => e instanceof ClassifierError && problem.test(e.message));
    }
    await assert.rejects(loadFocus({ classifier: join(dir, 'missing.mjs') }), /cannot load the classifier module/);
    await assert.rejects(loadFocus({}), /focus needs focus.topicFile or focus.classifier/);
  });
});
