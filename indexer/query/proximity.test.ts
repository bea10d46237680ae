import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storedDocument } from '../test-document.ts';
import { phraseEvidence } from './proximity.ts';

const doc = (id: number, title: string, text: string) => storedDocument(id, { url: `http://example.org/page${id}`, title, text });

describe('phraseEvidence through a last word\u2019s completions', () => {
  it('pairs through any alternative, counting its factor; the word as typed counts fully', () => {
    const typing = [
      'pg',
      [
        { term: 'st', factor: 1 },
        { term: 'stat', factor: 0.9 },
        { term: 'start', factor: 0.9 },
      ],
    ] as const;
    assert.equal(phraseEvidence(doc(1, 'pg stat activity', ''), typing), 0.9, '"pg_st": pg_stat, in the title');
    assert.equal(phraseEvidence(doc(2, 'x', 'pg st and pg start'), typing), 0.3, 'the best pair of a pair of words counts, once');
    assert.equal(phraseEvidence(doc(3, 'stat pg', 'pg then stat'), typing), 0, 'adjacent and in order only');
    assert.equal(phraseEvidence(doc(4, 'pg stat', 'pg stat'), ['pg', 'stat']), 1.3, 'words alone as before');
  });
});
