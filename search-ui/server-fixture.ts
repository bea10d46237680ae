/**
 * Test fixture: what every caller of `createApp` gives besides the searcher, the status and the
 * version — the server settings the config always holds, at their defaults (read from
 * config/schema.ts, not restated here), and a logger that says nothing.
 */
import { loadConfig } from '../config/index.ts';
import { SearchIndex } from '../indexer/index.ts';
import { storedDocument } from '../indexer/test-document.ts';
import { silentLog } from '../lib/log.ts';
import type { StoredDocument } from '../model/index.ts';
import type { UiDeps } from './deps.ts';

export type ConfiguredDeps = Pick<UiDeps, 'log' | 'maxEventStreams' | 'apiRate' | 'hosts' | 'corsOrigins'>;

const { server } = loadConfig({ env: {} });

/** The settings `trawl serve` passes createApp when the config says nothing (cli/commands.ts `serverOptions`). */
export function serverDefaults(): ConfiguredDeps {
  return {
    log: silentLog,
    maxEventStreams: server.maxEventStreams,
    apiRate: server.apiRate,
    hosts: { bound: server.host, allowed: server.allowedHosts },
    corsOrigins: server.corsOrigins,
  };
}

/** An index of two pages about VACUUM (the tests of the search log and the console search it). */
export function vacuumIndex(): SearchIndex {
  const docs = new Map<number, StoredDocument>();
  const index = new SearchIndex((id) => docs.get(id));
  for (const [id, url, title, text] of [
    [1, 'http://e.org/vacuum.html', 'VACUUM', 'VACUUM reclaims storage occupied by dead tuples.'],
    [2, 'http://e.org/autovacuum.html', 'Autovacuum', 'The autovacuum daemon runs VACUUM and ANALYZE.'],
  ] as const) {
    const d = storedDocument(id, { url, title, text });
    docs.set(id, d);
    index.upsert(d);
  }
  return index;
}
