import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Frontier } from '../../crawler/frontier/frontier.ts';
import { AnchorStore, MAX_ANCHOR_TEXT } from './anchors.ts';
import { openDb } from './db.ts';

describe('AnchorStore', () => {
  it('counts the links carrying each text to a page, ignores a page\u2019s links to itself, reads written rows', () => {
    const db = openDb(join(mkdtempSync(join(tmpdir(), 'trawl-anchors-')), 'crawl.db'));
    const frontier = new Frontier(db);
    for (const u of ['http://a.org/', 'http://a.org/x', 'http://a.org/y']) frontier.enqueue(u, 0);
    const [x, y] = ['http://a.org/x', 'http://a.org/y'].map((u) => frontier.idOf(u)!);
    const anchors = new AnchorStore(db);
    anchors.add('http://a.org/', [
      { target: 'http://a.org/x', text: 'The X page' },
      { target: 'http://a.org/x', text: 'The X page' },
      { target: 'http://a.org/x', text: '  ' },
      { target: 'http://a.org/not-fetched-yet', text: 'later' },
    ]);
    anchors.add('http://a.org/y', [{ target: 'http://a.org/x', text: 'x again' }, { target: 'http://a.org/y', text: 'myself' }, { target: 'http://a.org/x', text: 'z'.repeat(500) }]);
    assert.deepEqual(anchors.of(x!), { texts: [], sources: 0 }, 'buffered, not written yet');
    assert.equal(anchors.buffered, 4);
    anchors.write();
    assert.equal(anchors.buffered, 0);
    // Another page repeats a link: its count grows, no row is added.
    anchors.add('http://a.org/z', [{ target: 'http://a.org/x', text: 'The X page' }]);
    anchors.write();
    const ofX = anchors.of(x!);
    assert.deepEqual(ofX.texts, ['The X page', 'x again', 'z'.repeat(MAX_ANCHOR_TEXT)], 'most used first');
    assert.equal(ofX.sources, 5);
    assert.deepEqual(anchors.of(y!), { texts: [], sources: 0 }, 'its own link to itself does not count');
    // A URL queued later finds the anchors recorded before it was known.
    frontier.enqueue('http://a.org/not-fetched-yet', 1);
    assert.deepEqual(anchors.of(frontier.idOf('http://a.org/not-fetched-yet')!), { texts: ['later'], sources: 1 });
    db.close();
  });

  it('writes many distinct links in multi-row upserts, each once', () => {
    const db = openDb(join(mkdtempSync(join(tmpdir(), 'trawl-anchors-')), 'crawl.db'));
    const frontier = new Frontier(db);
    frontier.enqueue('http://a.org/t', 0);
    const anchors = new AnchorStore(db);
    const links = Array.from({ length: 300 }, (_, i) => ({ target: 'http://a.org/t', text: `text ${i % 150}` }));
    anchors.add('http://a.org/', links);
    anchors.write();
    const of = anchors.of(frontier.idOf('http://a.org/t')!);
    assert.equal(of.texts.length, 150);
    assert.equal(of.sources, 300);
    db.close();
  });
});
