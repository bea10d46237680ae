// The leased frontier (many crawlers sharing a PostgreSQL store by host leases) against the frontier
// contract (../contract/), on a throwaway PostgreSQL 15 (testweb/postgres.ts): each frontier a
// worker of its own.
import { after } from 'node:test';
import { openPostgresStore } from '../../../store/postgres/index.ts';
import { startPostgres } from '../../../testweb/postgres.ts';
import { frontierLimits, hostPolicy } from '../../settings-fixture.ts';
import { describeFrontierContract } from '../contract/index.ts';
import { HostScheduler } from '../hosts.ts';
import { LeasedFrontier } from './leased-frontier.ts';

const server = await startPostgres();
after(() => server.stop());

let workers = 0;

describeFrontierContract('leased, PostgreSQL', {
  store: async () => openPostgresStore(await server.createDatabase()),
  async frontier(store, s) {
    // (Leases far longer than a test's fake time: none runs out unless a test says so.)
    const shared = { worker: `w${++workers}`, machine: 'test', pid: process.pid, leaseMs: 3_600_000, maxHosts: 10 };
    const frontier = new LeasedFrontier({ store, scheduler: new HostScheduler(s.policy), ...s, shared });
    await frontier.load();
    return frontier;
  },
  defaults: { policy: hostPolicy(), ...frontierLimits() },
});
