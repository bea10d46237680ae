import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openDb, SCHEMA_VERSION } from './db.ts';
import { DocumentStore } from './documents.ts';
import type { StoredDocument } from '../../model/index.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'trawl-store-'));
const doc = (id: number, text: string): StoredDocument => ({ id, url: `http://e.org/${id}`, title: 't', description: 'd', headings: ['h1', 'h2'], text, contentType: 'text/html', bytes: 3, truncated: false, httpStatus: 200, fetchedAt: 5, hash: 'x' });

describe('DocumentStore', () => {
  it('stores, replaces and removes documents, logging every change in order', () => {
    const s = new DocumentStore(openDb(join(tmp(), 'c.db')));
    const a = s.put(doc(1, 'one'));
    const b = s.put(doc(2, 'two'));
    const c = s.put(doc(1, 'one again'));
    const d = s.remove(2);
    assert.equal(s.remove(99), undefined, 'removing a missing document logs nothing');
    assert.deepEqual(s.get(1), doc(1, 'one again'));
    assert.equal(s.get(2), undefined);
    assert.deepEqual(s.changesSince(a).map((x) => [x.seq, x.docId, x.op]), [[b, 2, 'put'], [c, 1, 'put'], [d, 2, 'remove']]);
    assert.equal(s.lastSeq(), d);
    s.pruneChanges(c!);
    assert.deepEqual(s.changesSince(0).map((x) => x.op), ['remove']);
    assert.equal(s.count(), 1);
    assert.deepEqual([...s.all()].map((x) => x.id), [1]);
    s.pruneChanges(d!);
    assert.equal(s.lastSeq(), d, 'the last sequence survives pruning every change');
    assert.ok(s.put(doc(3, 'three')) > d!);
  });

  it('keeps a document\u2019s language, and its absence', () => {
    const s = new DocumentStore(openDb(join(tmp(), 'c.db')));
    s.put({ ...doc(3, 'trois'), lang: 'fr-CA' });
    assert.deepEqual(s.get(3), { ...doc(3, 'trois'), lang: 'fr-CA' });
    s.put(doc(3, 'three'));
    assert.deepEqual(s.get(3), doc(3, 'three'));
  });

  it('keeps a document\u2019s token sequence with its stemming, until the document changes or goes', () => {
    const s = new DocumentStore(openDb(join(tmp(), 'c.db')));
    s.put(doc(4, 'four'));
    s.putSequence(4, Uint32Array.from([0, 7, 0xffffffff]), 'english');
    assert.deepEqual(s.sequencesOf([4], 'english').get(4), Uint32Array.from([0, 7, 0xffffffff]));
    assert.equal(s.sequencesOf([4], 'none').get(4), undefined, 'made with another stemming: not used');
    s.put(doc(4, 'four again'));
    assert.equal(s.sequencesOf([4], 'english').get(4), undefined, 'the new text has not been analyzed yet');
    s.putSequence(4, Uint32Array.from([0, 8]), 'english');
    s.put(doc(5, 'five'));
    s.putSequence(5, Uint32Array.from([0, 9]), 'english');
    assert.deepEqual([...s.sequencesOf([5, 99, 4], 'english')], [[4, Uint32Array.from([0, 8])], [5, Uint32Array.from([0, 9])]], 'several at once; none for a page without');
    s.remove(4);
    assert.equal(s.sequencesOf([4], 'english').get(4), undefined);
  });

  it('migrates a version 1 database in place', () => {
    const file = join(tmp(), 'c.db');
    const raw = new Database(file);
    raw.exec(`CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, host TEXT NOT NULL, depth INTEGER NOT NULL, state TEXT NOT NULL,
      reason TEXT, http_status INTEGER, hops INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, discovered_at INTEGER NOT NULL, fetched_at INTEGER);
      CREATE TABLE documents (id INTEGER PRIMARY KEY, url TEXT NOT NULL, title TEXT NOT NULL, description TEXT NOT NULL, headings TEXT NOT NULL, text TEXT NOT NULL,
        content_type TEXT NOT NULL, bytes INTEGER NOT NULL, truncated INTEGER NOT NULL, http_status INTEGER NOT NULL, fetched_at INTEGER NOT NULL, hash TEXT NOT NULL);
      INSERT INTO urls (id, url, host, depth, state, discovered_at) VALUES (1, 'http://e.org/', 'e.org', 0, 'queued', 1),
        (2, 'http://e.org/doc', 'e.org', 1, 'fetched', 1), (3, 'http://e.org/404', 'e.org', 1, 'failed', 1);
      INSERT INTO documents VALUES (2, 'http://e.org/doc', 't', '', '', 'x', 'text/html', 1, 0, 200, 1, 'h');`);
    raw.pragma('user_version = 1');
    raw.close();
    const db = openDb(file);
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.equal(new DocumentStore(db).get(2)?.lang, undefined, 'documents stored before languages were kept have none');
    assert.equal(new DocumentStore(db).get(2)?.topic, undefined, 'nor topics, before focused crawling');
    assert.deepEqual(db.prepare('SELECT tunnel, topic_score, relevant FROM urls WHERE id = 1').get(), { tunnel: 0, topic_score: null, relevant: null });
    assert.deepEqual(db.prepare('SELECT url, fetch_url, state FROM urls ORDER BY id').all(), [
      { url: 'http://e.org/', fetch_url: null, state: 'queued' },
      { url: 'http://e.org/doc', fetch_url: null, state: 'indexed' },
      { url: 'http://e.org/404', fetch_url: null, state: 'dead' },
    ]);
  });

  it('refuses a database written by a newer Trawl', () => {
    const file = join(tmp(), 'c.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    assert.throws(() => openDb(file), /newer Trawl/);
  });
});
