/**
 * `trawl demo` (and `make demo`): start the sample web, then `trawl start` on it with settings
 * that suit a local demo: a short per-host delay (the sample web is ours, on loopback), and
 * shorter waits for its deliberate failures (testweb/sample-web.ts DELIBERATE) — a request times out
 * after 5 s and a retry comes 2 s later, then 4 s — so that the crawl ends within a minute, not after
 * the two a page that never answers would take with the defaults.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { start } from './commands.ts';
import { log } from './shared.ts';
import { startSampleWeb } from '../testweb/sample-web.ts';

export async function runDemo(flags: { data?: string; port?: string }): Promise<void> {
  const modulesDir = fileURLToPath(new URL('../node_modules', import.meta.url));
  const web = await startSampleWeb({ modulesDir });
  log.info(`sample web: ${web.pageCount} pages on ${web.sites.join(', ')}`);
  const dataDir = flags.data ?? mkdtempSync(join(tmpdir(), 'trawl-demo-'));
  if (!flags.data) process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  process.on('exit', () => void web.close());
  const preset = { perHost: { delayMs: 100, maxConnections: 2 }, concurrency: 6, limits: { timeoutMs: 5000 }, retry: { baseDelayMs: 2000 } };
  try {
    await start(web.sites.slice(), { data: dataDir, port: flags.port ?? '8080' }, preset);
  } catch (e) {
    if (flags.port !== undefined || !/already in use/.test((e as Error).message)) throw e;
    log.warn('port 8080 is taken; using a free port instead');
    await start(web.sites.slice(), { data: dataDir, port: '0' }, preset);
  }
}
