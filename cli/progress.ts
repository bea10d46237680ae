/**
 * Crawl progress for the terminal: a redrawn bar on a TTY, a one-line summary every few seconds
 * otherwise (logs, CI). It only reads the appliance's status.
 */
import type { ApplianceStatus } from '../appliance/appliance.ts';

export type Progress = { stop(): void };

/** Mean milliseconds per page of each stage, from the crawler's stats events: where the time goes. */
export function stageLine(s: ApplianceStatus): string {
  const stages = s.crawl.stats?.stages;
  if (!stages) return '';
  const parts = Object.entries(stages)
    .filter(([, f]) => f.count > 0)
    .map(([name, f]) => `${name} ${(f.ms / f.count).toFixed(1)}`);
  return parts.length ? ` · ms/page: ${parts.join(', ')}` : '';
}

export function showProgress(status: () => ApplianceStatus, out: NodeJS.WriteStream = process.stderr): Progress {
  const tty = out.isTTY === true;
  const render = () => {
    const s = status();
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
  const timer = setInterval(render, tty ? 250 : 5000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      if (tty) {
        render();
        out.write('\n');
      }
    },
  };
}
