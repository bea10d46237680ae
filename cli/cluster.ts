/**
 * The commands of many processes on one PostgreSQL store (issue 22): `trawl worker`, a crawler that
 * shares the frontier with the others and runs until stopped, and `trawl workers`, which lists them.
 */
import { Appliance, listWorkers, type WorkerLine } from '../appliance/index.ts';
import { statusLine } from '../search-ui/index.ts';
import { configFrom, log, onStopSignal, say, UsageError, type CommonFlags } from './shared.ts';

const needsStore = (command: string) =>
  new UsageError(`trawl ${command} works on a store that many processes share: give --store postgres://user@host/db (or TRAWL_STORE, or store in the config)`);

/**
 * `trawl worker`: crawls the shared frontier by host lease, storing pages for the search nodes
 * (it keeps no index and never prunes the change log), fetching pages again as they fall due,
 * until SIGINT/SIGTERM — which finish or put back its requests and release its hosts.
 */
export async function worker(urls: string[], flags: CommonFlags): Promise<void> {
  const config = configFrom(flags, urls);
  if (!config.store) throw needsStore('worker');
  const app = await Appliance.open(config, { lockFor: 'worker', log, noIndex: true });
  try {
    await app.loadFocus();
    const { crawler } = await app.createCrawler([], 'continuous');
    onStopSignal(() => app.close());
    say(`worker ${crawler.worker} crawling ${app.where}; Ctrl-C to stop`);
    const summary = setInterval(async () => log.info(statusLine(await app.status())), 10_000);
    summary.unref();
    await crawler.run();
    clearInterval(summary);
  } catch (e) {
    await app.close();
    throw e;
  }
}

/** `trawl workers`: each worker of the store — its state, hosts held, pages/s, last heartbeat — and stale leases. */
export async function workers(flags: CommonFlags & { json?: boolean }): Promise<void> {
  const config = configFrom(flags);
  if (!config.store) throw needsStore('workers');
  const now = Date.now();
  const { location, workers: lines, orphans } = await listWorkers(config, now);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ workers: lines, orphans }, null, 2)}\n`);
    return;
  }
  if (!lines.length) say(`no worker has been heard from in a day on ${location}`);
  else process.stdout.write(table(lines, now));
  for (const l of orphans)
    process.stdout.write(`stale lease: ${l.host} held by ${l.worker}, not heard from in a day (it goes to another worker at the next claim)\n`);
}

function table(lines: readonly WorkerLine[], now: number): string {
  const rows = [
    ['WORKER', 'MACHINE', 'PID', 'STATE', 'HOSTS', 'PAGES/S', 'PAGES', 'HEARTBEAT'],
    ...lines.map((w) => [
      w.id,
      w.machine,
      String(w.pid),
      w.state,
      String(w.held.length),
      w.pagesPerSecond.toFixed(1),
      String(w.pages),
      `${ago(now - w.seenAt)} ago`,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const out = rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  for (const w of lines) if (w.stale.length) out.push(`stale leases of ${w.id} (ran out, not renewed): ${w.stale.join(', ')}`);
  return `${out.join('\n')}\n`;
}

const ago = (ms: number): string =>
  ms < 120_000 ? `${Math.round(ms / 1000)}s` : ms < 7_200_000 ? `${Math.round(ms / 60_000)}m` : `${Math.round(ms / 3_600_000)}h`;
