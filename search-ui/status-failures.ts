/**
 * What failed, told apart on the dashboard: the crawled sites' broken links — a 404 or 410 reached
 * from a link, with the page it was found on: the site's to fix — and the crawl's own failures
 * (timeouts, 5xx, refused connections, pages that could not be parsed…). The figures panel shows
 * their counts (`Failed` is the crawl's own once the two are known apart); these panels list them.
 */
import { html } from 'hono/html';
import type { BrokenLink, CrawlStatus, FailedUrl, Listed } from '../model/index.ts';
import { head, type Html, n, td } from './status-html.ts';

/** The sites' broken links and the crawl's own failures, each panel when there is one; each begins a line. */
export function failurePanels(c: CrawlStatus): Html | string {
  const broken = c.brokenLinks?.count ? brokenLinksPanel(c.brokenLinks) : '';
  const failed = c.fetchFailures?.count ? fetchFailuresPanel(c.fetchFailures) : '';
  return broken || failed ? html`${broken ? html`\n${broken}` : ''}${failed ? html`\n${failed}` : ''}` : '';
}

/** The links of the crawled sites to pages that are not there. */
export function brokenLinksPanel(b: Listed<BrokenLink>): Html {
  const rows = b.shown.map(
    (x) => html`<tr><td class="url">${x.url}</td>${td(x.status)}<td class="url">${x.foundOn ?? '—'}</td>${td(x.links ? n(x.links) : '—')}</tr>`,
  );
  return html`<section aria-labelledby="broken-h">
<h2 id="broken-h">Broken links on the sites</h2>
<p>${n(b.count)} link${b.count === 1 ? ' leads' : 's lead'} to a page that is not there (404 or 410): the site's to fix, not the crawl's.${more(b)}</p>
<div class="scroll"><table><thead>${head('Broken link', 'Status', 'Found on', 'Links with text')}</thead>
<tbody>${rows}</tbody></table></div>
</section>`;
}

/** The URLs the crawl could not fetch, broken links left out. */
export function fetchFailuresPanel(f: Listed<FailedUrl>): Html {
  const rows = f.shown.map(
    (x) =>
      html`<tr class="trouble"><td class="url">${x.url}</td>${[
        td(x.state === 'dead' ? 'given up' : 'to be retried'),
        td(x.error ?? '—'),
        td(x.reason ?? '—'),
        td(n(x.attempts)),
      ]}</tr>`,
  );
  return html`<section aria-labelledby="failures-h">
<h2 id="failures-h">Failures of the crawl</h2>
<p>${n(f.count)} URL${f.count === 1 ? '' : 's'} could not be fetched: timeouts, server errors, refused connections, pages that could not be read.${more(f)}</p>
<div class="scroll"><table><thead>${head('URL', 'State', 'Error', 'Reason', 'Attempts')}</thead>
<tbody>${rows}</tbody></table></div>
</section>`;
}

/** The figures of the two: the crawl's own failures as `Failed`, and the broken links beside. */
export function failureFigures(c: CrawlStatus): Html {
  if (!c.brokenLinks || !c.fetchFailures) return html`<div><dt>Failed</dt><dd data-figure="failed">${n(c.failed)}</dd></div>`;
  return html`<div><dt>Failed</dt><dd data-figure="failed" title="URLs the crawl could not fetch: timeouts, server errors, refused connections…">${n(
    c.fetchFailures.count,
  )}</dd></div>
<div><dt>Broken links</dt><dd data-figure="broken-links" title="Links of the crawled sites to pages that are not there (404 or 410)">${n(
    c.brokenLinks.count,
  )}</dd></div>`;
}

/** "The first N are listed." when there are more than were listed. */
function more(l: Listed<unknown>): string {
  return l.count > l.shown.length ? ` The first ${n(l.shown.length)} are listed.` : '';
}
