import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SCORING, scorePage, type ScoringOptions, type TopicPage } from './scorers.ts';
import { parseTopic } from './topic.ts';

// Expected scores are worked out by hand in the comments; default weights: title 4, meta 3,
// headings 2, text 1; position scorer H = 100, G = 10.
const topic = parseTopic(['10: coin=coins', '5: roman empire=history', '3: silver @and denarius=coins,history', '-4: casino'].join('\n'));

const page: TopicPage = {
  title: 'Roman Empire coin guide', // words 0–3
  description: 'A coin catalogue', // words 4–6
  headings: ['Silver denarius'],
  text: 'Silver denarius of the Roman Empire. A coin, another coin. Casino ads.', // words 7–18
};

const plain: ScoringOptions = DEFAULT_SCORING;
const position: ScoringOptions = { ...DEFAULT_SCORING, scorer: 'position' };

function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < 0.002, `${what}: ${actual}, expected ${expected}`);
}

describe('the plain scorer', () => {
  it('sums weight × location weight × hits over terms and locations', () => {
    const s = scorePage(topic, page, plain);
    // coin: title 10×4 + meta 10×3 + text 10×1×2 = 90
    // roman empire: title 5×4 + text 5×1 = 25
    // silver @and denarius: headings 3×2 + text 3×1 = 9 (title has silver? no: not counted)
    // casino: text −4×1 = −4
    assert.equal(s.score, 120);
    assert.deepEqual(s.classes, [
      { name: 'coins', score: 99 },
      { name: 'history', score: 34 },
    ]);
    assert.deepEqual(
      s.matches.map((m) => [m.term, m.score, m.where.map((w) => `${w.location}:${w.hits}`).join(' ')]),
      [
        ['coin', 90, 'title:1 meta:1 text:2'],
        ['roman empire', 25, 'title:1 text:1'],
        ['silver @and denarius', 9, 'headings:1 text:1'],
        ['casino', -4, 'text:1'],
      ],
    );
    assert.equal(s.words, 4 + 3 + 12);
  });

  it('counts an @and term as often as its rarest part, and not at all when a part is missing', () => {
    const t = parseTopic('2: silver @and denarius=c');
    const p = (text: string): TopicPage => ({ title: '', description: '', headings: [], text });
    assert.equal(scorePage(t, p('silver silver silver denarius denarius'), plain).score, 2 * 1 * 2);
    assert.equal(scorePage(t, p('silver silver silver'), plain).score, 0);
    assert.deepEqual(scorePage(t, p('silver only'), plain).matches, []);
  });

  it('matches regular expressions on whole words, case-insensitively', () => {
    const t = parseTopic(['1: coins?=c', '1: art[^\\s]*=a'].join('\n'));
    const s = scorePage(t, { title: '', description: '', headings: [], text: 'Coins, COIN, coinsure; Artists art-deco smart' }, plain);
    // coins? : "coins", "coin" (not "coinsure"); art[^\s]* : "artists", "art-deco" (not "smart")
    assert.deepEqual(
      s.matches.map((m) => [m.term, m.where[0]!.hits]),
      [
        ['coins?', 2],
        ['art[^\\s]*', 2],
      ],
    );
  });

  it('reads meta keywords as meta data, and uses the location weights it is given', () => {
    const t = parseTopic('1: coin=c');
    const s = scorePage(
      t,
      { title: 'coin', description: '', keywords: 'coin, medal', headings: ['coin'], text: 'coin' },
      { ...plain, locationWeights: { title: 7, meta: 5, headings: 3, text: 2 } },
    );
    assert.equal(s.score, 7 + 5 + 3 + 2);
  });

  it('normalizes by length: per 100 words, short pages counting as 100', () => {
    const long = { ...page, text: `${page.text} ${'filler '.repeat(281)}` }; // 19 + 281 = 300 words
    assert.equal(scorePage(topic, long, { ...plain, normalize: true }).score, 40, '120 × 100 / 300');
    assert.equal(scorePage(topic, page, { ...plain, normalize: true }).score, 120, '19 words count as 100');
  });
});

describe('the position-weighted scorer', () => {
  it('weights each match by how near the start of title + meta + text it is', () => {
    const s = scorePage(topic, page, position);
    // coin at words 2, 5, 14, 16: 10 × (100/102 + 100/105 + 100/114 + 100/116) = 36.7204
    // roman empire at 0 and 11: 5 × (1 + 100/111) = 9.5045
    // silver (7) @and denarius (8), adjacent: 3 × 100/107 × 10/10 = 2.8037
    // casino at 17: −4 × 100/117 = −3.4188
    close(s.score, 36.7204 + 9.5045 + 2.8037 - 3.4188, 'score');
    close(s.classes[0]!.score, 36.7204 + 2.8037, 'coins');
    close(s.classes[1]!.score, 9.5045 + 2.8037, 'history');
    assert.deepEqual(
      s.matches[0]!.where.map((w) => `${w.location}:${w.hits}`),
      ['title:1', 'meta:1', 'text:2'],
    );
  });

  it('counts the parts of an @and term less the farther apart they are', () => {
    const t = parseTopic('3: silver @and denarius=c\n2: roman empire @and coin=c');
    const p = (text: string): TopicPage => ({ title: '', description: '', headings: [], text });
    // silver at 0, denarius at 6: five words between → 3 × 1 × 10 / (10 + 5) = 2
    assert.equal(scorePage(t, p('silver a b c d e denarius'), position).score, 2);
    // adjacent: 3 × 1 × 1
    assert.equal(scorePage(t, p('silver denarius'), position).score, 3);
    // a phrase part covers its words: "roman empire" (0–1) then coin (2) are adjacent → 2 × 1 × 1
    assert.equal(scorePage(t, p('roman empire coin'), position).score, 2);
    // each occurrence of the first part, with the nearest of the other: silver 0 → denarius 1 (gap 0),
    // silver 3 → denarius 1 (window 1–3: gap 1): 3 + 3 × 100/101 × 10/11
    close(scorePage(t, p('silver denarius x silver'), position).score, 3 + (3 * (100 / 101) * 10) / 11, 'two windows');
  });

  it('takes its half-weight distances from the options', () => {
    const t = parseTopic('4: coin=c');
    const s = scorePage(t, { title: '', description: '', headings: [], text: 'a b c d e f g h i coin' }, { ...position, halfWeightAt: 9 });
    assert.equal(s.score, 2, 'a match 9 words in counts half');
  });
});
