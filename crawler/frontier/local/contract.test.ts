// The local frontier (one crawler on its own store) against the frontier contract (../contract/),
// on SQLite in a temp directory and on a throwaway PostgreSQL 15 (testweb/postgres.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { openPostgresStore } from '../../../store/postgres/index.ts';
import { openSqliteStore } from '../../../store/sqlite/index.ts';
import { startPostgres } from '../../../testweb/postgres.ts';
import { frontierLimits, hostPolicy } from '../../settings-fixture.ts';
import { describeFrontierContract, type FrontierSettings } from '../contract/index.ts';
import { HostScheduler } from '../hosts.ts';
import { LocalFrontier } from './local-frontier.ts';
import type { Store } from '../../../store/index.ts';

const server = await startPostgres();
after(() => server.stop());

async function local(store: Store, s: FrontierSettings): Promise<LocalFrontier> {
  const frontier = new LocalFrontier({ store, scheduler: new HostScheduler(s.policy), ...s });
  await frontier.load();
  return frontier;
}
const defaults = { policy: hostPolicy(), ...frontierLimits() };

describeFrontierContract('local, SQLite', {
  store: async () => openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-frontier-contract-'))),
  frontier: local,
  defaults,
});

describeFrontierContract('local, PostgreSQL', {
  store: async () => openPostgresStore(await server.createDatabase()),
  frontier: local,
  defaults,
});
