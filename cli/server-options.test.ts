import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { SearchIndex } from '../indexer/index.ts';
import { createApp } from '../search-ui/app.ts';
import { idleStatus } from '../search-ui/status-fixture.ts';
import { serverOptions } from './commands.ts';

/** The search server a command would start with this `server` section (nothing indexed). */
function appWith(server: Record<string, unknown>) {
  const config = loadConfig({ env: {}, overrides: { server } });
  return createApp({ ...serverOptions(config), searcher: new SearchIndex(() => undefined), status: async () => idleStatus({ running: true }), version: 't' });
}
/** The statuses of `n` searches sent at once from one address (a request made in process has none: all count as one). */
async function burst(app: ReturnType<typeof appWith>, n: number): Promise<number[]> {
  const ask = () => app.request('/api/search?q=vacuum');
  return (await Promise.all(Array.from({ length: n }, ask))).map((r) => r.status);
}

describe("the search server's API rate (server.apiRate)", () => {
  it('limits one address to the configured rate, with bursts of twice it', async () => {
    const statuses = await burst(appWith({ apiRate: 2 }), 6);
    assert.deepEqual(statuses.slice(0, 4), [200, 200, 200, 200]);
    assert.deepEqual(statuses.slice(4), [429, 429]);
  });

  it('lets a load test raise it', async () => {
    const statuses = await burst(appWith({ apiRate: 100 }), 60);
    assert.ok(statuses.every((s) => s === 200));
  });

  it('rejects a rate that is no positive integer', () => {
    assert.throws(() => loadConfig({ env: {}, overrides: { server: { apiRate: 0 } } }), /server\.apiRate/);
  });
});
