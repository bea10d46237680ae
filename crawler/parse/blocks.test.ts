import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodyOf, COUNTED_LINES, inTemplate, LineBuilder, lineHash, withoutTemplate } from './blocks.ts';

/** Lines as the tree walk would hand them: [text, is it anchor text] pieces, one array per block. */
function build(blocks: readonly (readonly [string, boolean][])[], main = false): LineBuilder {
  const b = new LineBuilder();
  for (const pieces of blocks) {
    for (const [text, anchor] of pieces) b.add(text, anchor, main);
    b.end();
  }
  return b;
}
const text = (s: string): [string, boolean][] => [[s, false]];
const link = (s: string): [string, boolean][] => [[s, true]];
const template = (...lines: string[]) => Uint32Array.from(lines.map(lineHash)).sort();

const CONTENT = 'VACUUM reclaims storage occupied by dead tuples, which remain until a VACUUM is done.';

describe('a page as blocks', () => {
  it('makes one line per block, whitespace squashed, blank blocks dropped', () => {
    const b = build([
      [['  First\n   paragraph ', false]],
      text('   '),
      [
        ['Second ', false],
        ['with a link', true],
        [' in it.', false],
      ],
    ]);
    assert.equal(bodyOf(b, false, undefined).text, 'First paragraph\nSecond with a link in it.');
  });

  it('leaves out navigation: link-dense lines, and a short line between them (PostgreSQL\u2019s navigation table)', () => {
    const b = build([
      text('VACUUM'),
      link('Prev'),
      link('Up'),
      text('SQL Commands'),
      link('Home'),
      link('Next'),
      text('VACUUM — garbage-collect and optionally analyze a database'),
      text(CONTENT),
      [
        ['See ', false],
        ['Section 25.1', true],
        [' for more on how it works.', false],
      ],
      link('Prev'),
      link('Next'),
      text('UPDATE'),
      link('Home'),
      text('VALUES'),
    ]);
    assert.equal(
      bodyOf(b, false, undefined).text,
      `VACUUM — garbage-collect and optionally analyze a database\n${CONTENT}\nSee Section 25.1 for more on how it works.`,
    );
  });

  it('keeps short lines that sit among content, and a page of one short line', () => {
    const b = build([text('Synopsis'), text(CONTENT), text('Notes'), text('Parameters'), text(CONTENT.toLowerCase()), link('Next')]);
    assert.equal(bodyOf(b, false, undefined).text.split('\n').length, 5);
    assert.equal(bodyOf(build([text('Hello')]), false, undefined).text, 'Hello');
  });

  it('keeps the links of a page that is nothing but links (a table of contents)', () => {
    const b = build([link('1. Getting Started'), link('2. The SQL Language'), link('Site menu')]);
    assert.equal(bodyOf(b, false, template('Site menu')).text, '1. Getting Started\n2. The SQL Language');
  });

  it('leaves out the host\u2019s template blocks, and the short lines left between them', () => {
    const b = build([
      text('Example Docs — the manual'),
      text('v2'),
      text('This documentation is maintained by the Example team.'),
      text(CONTENT),
      text('Report a problem with this page to the Example team.'),
    ]);
    const t = template(
      'Example Docs — the manual',
      'This documentation is maintained by the Example team.',
      'Report a problem with this page to the Example team.',
    );
    assert.equal(bodyOf(b, false, t).text, CONTENT);
    assert.ok(inTemplate(t, 'Example Docs — the manual'));
    assert.ok(!inTemplate(t, CONTENT) && !inTemplate(undefined, CONTENT));
  });

  it('keeps only <main>\u2019s lines when the page has one', () => {
    const b = new LineBuilder();
    b.add('Outside', false, false);
    b.end();
    b.add(CONTENT, false, true);
    b.end();
    assert.equal(bodyOf(b, true, undefined).text, CONTENT);
  });

  it('gives the template learner the distinct blocks that are not links, from the page\u2019s edges', () => {
    const b = build([text('Menu title'), link('Home'), text(CONTENT), text(CONTENT), text('Footer line')]);
    assert.deepEqual([...bodyOf(b, false, undefined).blocks].sort(), ['Menu title', CONTENT, 'Footer line'].map(lineHash).sort());
    const long = build(Array.from({ length: 1000 }, (_, i) => text(`line ${i}`)));
    const blocks = bodyOf(long, false, undefined).blocks;
    assert.equal(blocks.length, 2 * COUNTED_LINES);
    assert.ok(blocks.includes(lineHash('line 0')) && blocks.includes(lineHash('line 999')) && !blocks.includes(lineHash('line 500')));
  });

  it('cleans a stored text of blocks learned since: each line of it is a block', () => {
    const stored = `Example Docs — the manual\nv2\nThis documentation is maintained by the Example team.\n${CONTENT}`;
    assert.equal(withoutTemplate(stored, template('Example Docs — the manual', 'This documentation is maintained by the Example team.')), CONTENT);
    assert.equal(withoutTemplate(stored, template('not in it')), undefined, 'nothing to clean');
  });
});
