/**
 * bench/search-while-crawling's probe inside the process it measures (loaded with `node --import`
 * before the compiled trawl.js, so the product carries no bench code): how long the main thread's
 * event loop was held. Every 250 ms it appends a line to the file named by TRAWL_LOOP_PROBE:
 * `[ms since the epoch, longest loop delay, loop delays over 5 ms, over 10 ms, longest GC pause,
 * GC pauses over 5 ms]` (ms). A loop delay is how late a 1 ms timer fired: a task that held the
 * thread for X ms shows as a delay of about X — what a query arriving at its start waits.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.TRAWL_LOOP_PROBE;
if (file) {
  const delays = monitorEventLoopDelay({ resolution: 1 });
  delays.enable();
  let gcMax = 0;
  let gcOver5 = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMax = Math.max(gcMax, e.duration);
      if (e.duration > 5) gcOver5++;
    }
  }).observe({ entryTypes: ['gc'] });
  // (Counting the delays over a bound from the histogram: the share of samples above it, times their number.)
  const over = (ms) => {
    let below = 0;
    for (const [percentile, ns] of delays.percentiles) {
      if (ns > ms * 1e6) return Math.round(delays.count * (1 - below / 100));
      below = percentile;
    }
    return 0;
  };
  setInterval(() => {
    const line = [Date.now(), delays.max / 1e6, over(5), over(10), gcMax, gcOver5].map((x) => Math.round(x * 100) / 100);
    delays.reset();
    gcMax = 0;
    gcOver5 = 0;
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }, 250).unref();
}
