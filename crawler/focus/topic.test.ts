import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadTopicFile, parseTopic, TopicError } from './topic.ts';

/** The problem a topic text is refused with, and its line. */
function refusal(text: string): { line: number; problem: string } {
  try {
    parseTopic(text, 't.txt');
  } catch (e) {
    assert.ok(e instanceof TopicError, `not a TopicError: ${String(e)}`);
    assert.match(e.message, e.line ? new RegExp(`^t\\.txt line ${e.line}: `) : /^t\.txt: /);
    return { line: e.line, problem: e.problem };
  }
  assert.fail(`accepted: ${JSON.stringify(text)}`);
}

describe('topic definitions', () => {
  it('reads words, phrases, @and conjunctions, regular expressions, negative weights, comments and blank lines', () => {
    const topic = parseTopic(
      [
        '# Coins',
        '',
        '10: Numismatics=Coins',
        '  8: roman coins = coins, History ',
        '6: denarius @and silver @and Rome=coins',
        '5: @and mint @and die=coins',
        '4: coins?=coins',
        '3: art[^\\s]*=art',
        '2.5: a=b=x',
        '-20: casino',
        '-5: online casino=coins',
      ].join('\r\n'),
      '/x/coins.txt',
    );
    assert.equal(topic.name, 'coins');
    assert.deepEqual(topic.classes, ['art', 'coins', 'history', 'x']);
    const [word, phrase, and3, andLead, re1, re2, eqRe, neg, negClass] = topic.terms;
    assert.deepEqual(
      { ...word, parts: word!.parts },
      { text: 'Numismatics', line: 3, weight: 10, classes: ['coins'], parts: [{ kind: 'words', words: ['numismatics'] }] },
    );
    assert.deepEqual(phrase!.parts, [{ kind: 'words', words: ['roman', 'coins'] }]);
    assert.deepEqual(phrase!.classes, ['coins', 'history']);
    assert.equal(phrase!.line, 4);
    assert.deepEqual(
      and3!.parts.map((p) => (p.kind === 'words' ? p.words : p.source)),
      [['denarius'], ['silver'], ['rome']],
    );
    assert.deepEqual(
      andLead!.parts.map((p) => (p.kind === 'words' ? p.words : p.source)),
      [['mint'], ['die']],
      "Combine's leading @and is accepted",
    );
    assert.equal(re1!.parts[0]!.kind, 'regex');
    assert.equal(re2!.parts[0]!.kind === 'regex' && re2!.parts[0]!.source, 'art[^\\s]*', 'a regular expression keeps its case (\\s is not \\S)');
    assert.equal(eqRe!.text, 'a=b', 'the last "=" starts the classes');
    assert.deepEqual([neg!.weight, neg!.classes], [-20, []]);
    assert.deepEqual([negClass!.weight, negClass!.classes], [-5, ['coins']]);
    assert.equal(topic.terms.length, 9);
  });

  it('refuses every malformed line, naming the line and the problem', () => {
    const cases: [string, RegExp][] = [
      ['coins=coins', /no ":" after the weight/],
      ['ten: coins=coins', /the weight "ten" is not a number/],
      ['0: coins=coins', /weight of 0 has no effect/],
      ['10: =coins', /no terms/],
      ['10:    ', /no terms/],
      ['10: coins', /no class after "="/],
      ['10: coins=', /no class after "="/],
      ['10: coins=a,,b', /empty class name/],
      ['10: coins=a,', /empty class name/],
      ['10: coins=old coins', /the class "old coins" is not a name/],
      ['10: coins @and =a', /@and with nothing on one side/],
      ['10: @and=a', /@and with nothing on one side/],
      ['10: coins@and silver=a', /@and needs spaces/],
      ['10: --- =a', /has no letters or digits/],
      ['10: coin(s=a', /not a valid regular expression/],
      ['10: c++=a', /not a valid regular expression/],
      ['10: x*=a', /matches an empty string/],
      [`10: ${'a'.repeat(2001)}=a`, /too long/],
    ];
    for (const [line, problem] of cases) {
      const r = refusal(`# comment\n\n5: fine=ok\n${line}\n`);
      assert.equal(r.line, 4, line);
      assert.match(r.problem, problem, line);
    }
  });

  it('refuses a topic with nothing that could make a page relevant', () => {
    assert.match(refusal('# only comments\n\n').problem, /no term with a positive weight/);
    assert.match(refusal('-5: casino\n').problem, /no term with a positive weight/);
    assert.equal(refusal('').line, 0);
  });

  it('reads a file, and says when it cannot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-topic-'));
    writeFileSync(join(dir, 'ok.txt'), '\uFEFF10: coins=coins\n');
    assert.equal(loadTopicFile(join(dir, 'ok.txt')).terms.length, 1, 'a byte order mark is not part of line 1');
    assert.throws(
      () => loadTopicFile(join(dir, 'missing.txt')),
      (e: unknown) => e instanceof TopicError && /cannot read the topic file \(ENOENT\)/.test(e.message),
    );
  });
});
