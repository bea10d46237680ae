/** The status of an appliance that has done nothing yet: what search-ui's tests serve as /api/status. */
import type { ApplianceStatus } from '../model/index.ts';

export const idleStatus = ({ documents = 0, running = false } = {}): ApplianceStatus => ({
  crawl: {
    running,
    paused: false,
    fetched: 0,
    indexed: 0,
    queued: 0,
    inFlight: 0,
    failed: 0,
    retrying: 0,
    dead: 0,
    excluded: 0,
    redirected: 0,
    pagesPerSecond: 0,
    stats: null,
    hosts: [],
    rejections: [],
  },
  recrawl: { continuous: false, due: 0, nextDueAt: null, revisited: 0, changed: 0, unchanged: 0, removed: 0 },
  focus: null,
  index: { documents, terms: 0, lastFlushAt: null, lastFlushMs: null, lastFlushBytes: null },
  recent: [],
});
