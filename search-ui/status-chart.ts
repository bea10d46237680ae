/**
 * The dashboard's chart: the crawl's history — pages fetched and failed fetches on one scale (counts),
 * pages per second on a scale of its own (dashed) — from the samples the appliance keeps over the
 * whole crawl (ApplianceStatus.history: a dashboard opened after the crawl ended, or reloaded, shows
 * it all), or, with no crawl in this process (`trawl serve`), those this server saw (History).
 */
import { html } from 'hono/html';
import type { ApplianceStatus, CrawlSample } from '../model/index.ts';
import type { Html } from './status-html.ts';

const WIDTH = 600;
const HEIGHT = 120;

type Series = {
  readonly key: 'pages' | 'failures' | 'pagesPerSecond';
  readonly label: string;
  /** Its swatch's class (style.css) and its line's color, the same. */
  readonly swatch: string;
  readonly color: string;
  /** Series on one scale share its largest value. */
  readonly scale: 'count' | 'rate';
};

const SERIES: readonly Series[] = [
  { key: 'pages', label: 'pages', swatch: 'fetched', color: '#0b57d0', scale: 'count' },
  { key: 'failures', label: 'failures', swatch: 'failed', color: '#cf222e', scale: 'count' },
  { key: 'pagesPerSecond', label: 'pages/s', swatch: 'rate', color: '#1a7f37', scale: 'rate' },
];

/** The history as lines across the box: time from the first sample to the last; the legend gives the last values (and the peak rate). */
export function chart(samples: readonly CrawlSample[]): Html {
  const times = samples.map((s) => Date.parse(s.at));
  const t0 = times[0] ?? 0;
  const span = Math.max(1000, (times.at(-1) ?? 0) - t0);
  const top = { count: 1, rate: 1 };
  for (const s of samples) for (const x of SERIES) top[x.scale] = Math.max(top[x.scale], s[x.key]);
  const points = (x: Series) =>
    samples.map((s, i) => `${(((times[i]! - t0) / span) * WIDTH).toFixed(1)},${(HEIGHT - (s[x.key] / top[x.scale]) * (HEIGHT - 4) - 2).toFixed(1)}`).join(' ');
  const last = samples.at(-1);
  const dash = (x: Series) => (x.scale === 'rate' ? html` stroke-dasharray="6 4"` : '');
  const lines = SERIES.map(
    (x) =>
      html`<polyline fill="none" stroke="${x.color}" stroke-width="2"${dash(x)} vector-effect="non-scaling-stroke" data-series="${x.key}" points="${points(
        x,
      )}"/>`,
  );
  const keys = SERIES.map(
    (x) =>
      html`<span class="key"><span class="swatch swatch-${x.swatch}"></span>${x.label} ${(last?.[x.key] ?? 0).toLocaleString('en')}${
        x.scale === 'rate' && samples.length ? ` (peak ${top.rate.toLocaleString('en')})` : ''
      }</span>`,
  );
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${label(span)}">
${lines}
</svg>
<figcaption>${keys}</figcaption>
</figure>`;
}

/** What the chart shows, for those who cannot see it. */
const label = (span: number) => `Pages fetched, failures and pages per second over the crawl (${duration(span)})`;

/** A span of time as a person says it: 45 s, 12 min, 3.5 h. */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/**
 * The figures this server saw, a sample a second at most, the last HISTORY_SEEN of them: the chart
 * of a server with no crawl in this process (a crawl's own history comes with its status).
 */
export class History {
  private readonly samples: CrawlSample[] = [];
  add(s: ApplianceStatus, now = Date.now()): void {
    const last = this.samples.at(-1);
    if (last && now - Date.parse(last.at) < 1000) return;
    this.samples.push({ at: new Date(now).toISOString(), pagesPerSecond: s.crawl.pagesPerSecond, pages: s.crawl.fetched, failures: s.crawl.failed });
    if (this.samples.length > HISTORY_SEEN) this.samples.shift();
  }
  get all(): readonly CrawlSample[] {
    return this.samples;
  }
}
const HISTORY_SEEN = 300;
