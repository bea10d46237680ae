import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Frontier } from '../crawler/frontier/frontier.ts';
import { AnchorStore, MAX_ANCHOR_TEXT } from './anchors.ts';
import { openDb } from './db.ts';

describe('AnchorStore', () => {
  it('keeps the text of links to a page, counts the pages linking in, and ignores a page\u2019s links to itself', () => {
    const db = openDb(join(mkdtempSync(join(tmpdir(), 'trawl-anchors-')), 'crawl.db'));
    const frontier = new Frontier(db);
    for (const u of ['http://a.org/', 'http://a.org/x', 'http://a.org/y']) frontier.enqueue(u, 0);
    const [home, x, y] = ['http://a.org/', 'http://a.org/x', 'http://a.org/y'].map((u) => frontier.idOf(u)!);
    const anchors = new AnchorStore(db);
    anchors.add(home!, [
      { target: 'http://a.org/x', text: 'The X page' },
      { target: 'http://a.org/x', text: 'The X page' },
      { target: 'http://a.org/x', text: '  ' },
      { target: 'http://a.org/not-fetched-yet', text: 'later' },
    ]);
    anchors.add(y!, [{ target: 'http://a.org/x', text: 'x again' }, { target: 'http://a.org/y', text: 'myself' }, { target: 'http://a.org/x', text: 'z'.repeat(500) }]);
    assert.deepEqual(anchors.of(x!), { texts: [], sources: 0 }, 'buffered, not written yet');
    assert.equal(anchors.buffered, 6);
    anchors.write();
    assert.equal(anchors.buffered, 0);
    const ofX = anchors.of(x!);
    assert.deepEqual([...ofX.texts].sort(), ['The X page', 'x again', 'z'.repeat(MAX_ANCHOR_TEXT)].sort());
    assert.equal(ofX.sources, 2);
    assert.deepEqual(anchors.of(y!), { texts: [], sources: 0 }, 'its own link to itself does not count');
    // A URL queued later finds the anchors recorded before it was known.
    frontier.enqueue('http://a.org/not-fetched-yet', 1);
    assert.deepEqual(anchors.of(frontier.idOf('http://a.org/not-fetched-yet')!), { texts: ['later'], sources: 1 });
    db.close();
  });

  it('records a page with hundreds of links (several multi-row inserts), each once', () => {
    const db = openDb(join(mkdtempSync(join(tmpdir(), 'trawl-anchors-')), 'crawl.db'));
    const frontier = new Frontier(db);
    frontier.enqueue('http://a.org/', 0);
    frontier.enqueue('http://a.org/t', 0);
    const anchors = new AnchorStore(db);
    const links = Array.from({ length: 300 }, (_, i) => ({ target: 'http://a.org/t', text: `text ${i % 150}` }));
    anchors.add(frontier.idOf('http://a.org/')!, links);
    anchors.write();
    assert.equal(anchors.of(frontier.idOf('http://a.org/t')!).texts.length, 150);
    db.close();
  });
});
