import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApplianceStatus } from '../model/index.ts';
import { stageLine } from './progress.ts';

const status = (stats: ApplianceStatus['crawl']['stats']): ApplianceStatus => ({
  crawl: {
    running: true,
    fetched: 4,
    indexed: 4,
    queued: 1,
    inFlight: 0,
    failed: 0,
    retrying: 0,
    dead: 0,
    excluded: 0,
    redirected: 0,
    pagesPerSecond: 2,
    stats,
    hosts: [],
    paused: false,
    rejections: [],
  },
  recrawl: { continuous: false, due: 0, nextDueAt: null, revisited: 0, changed: 0, unchanged: 0, removed: 0 },
  focus: null,
  index: { documents: 4, lastFlushAt: null, lastFlushMs: null, terms: 0, lastFlushBytes: null },
  recent: [],
});

describe('stageLine', () => {
  it('shows the mean milliseconds per page of each stage that ran', () => {
    const line = stageLine(
      status({
        requests: 4,
        bytes: 100,
        pagesPerSecond: 2,
        outcomes: { indexed: 4 },
        stages: {
          fetch: { count: 4, ms: 10 },
          parse: { count: 4, ms: 6 },
          render: { count: 0, ms: 0 },
          classify: { count: 0, ms: 0 },
          store: { count: 4, ms: 1 },
          index: { count: 4, ms: 2 },
          links: { count: 0, ms: 0 },
        },
      }),
    );
    assert.equal(line, ' · ms/page: fetch 2.5, parse 1.5, store 0.3, index 0.5');
  });

  it('is empty before the first stats event', () => assert.equal(stageLine(status(null)), ''));
});
