/**
 * Crawl progress for the terminal: a redrawn bar on a TTY, a one-line summary every few seconds
 * otherwise (logs, CI). It only reads the appliance's status.
 */
import type { ApplianceStatus } from '../model/index.ts';

export type Progress = { stop(): Promise<void> };

/** Mean milliseconds per page of each stage, from the crawler's stats events: where the time goes. */
export function stageLine(s: ApplianceStatus): string {
  const stages = s.crawl.stats?.stages;
  if (!stages) return '';
  const parts = Object.entries(stages)
    .filter(([, f]) => f.count > 0)
    .map(([name, f]) => `${name} ${(f.ms / f.count).toFixed(1)}`);
  return parts.length ? ` · ms/page: ${parts.join(', ')}` : '';
}

export function showProgress(status: () => Promise<ApplianceStatus>, out: NodeJS.WriteStream = process.stderr): Progress {
  const tty = out.isTTY === true;
  let stopped = false;
  const render = async () => {
    const s = await status();
    const c = s.crawl;
    const total = c.fetched + c.failed + c.queued + c.inFlight;
    const done = c.fetched + c.failed;
    const text = `${done}/${total} URLs · ${c.pagesPerSecond}/s · ${c.failed} failed · ${s.index.documents} indexed`;
    if (!tty) return out.write(`[trawl] ${new Date().toISOString().slice(11, 19)} ${text}${stageLine(s)}\n`);
    const width = 24;
    const filled = total ? Math.round((done / total) * width) : 0;
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${text}`;
    return out.write(`\r${line.slice(0, (out.columns || 100) - 1)}\x1b[K`);
  };
  // (A status read after stop() is not drawn: the command has moved on.)
  const draw = () => void render().catch(() => undefined);
  const timer = setInterval(() => stopped || draw(), tty ? 250 : 5000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopped = true;
      if (tty) {
        await render().catch(() => undefined);
        out.write('\n');
      }
    },
  };
}
