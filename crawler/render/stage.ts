/**
 * One page through the browser, inside the crawl's pipeline: rendered straight away when the policy
 * says so before parsing (`always`, a host that renders from the start), else parsed plain and
 * rendered when the detector says it needs a browser. The rendered DOM goes through the same parser
 * as any page. What the crawl learns: the page to use, why it was rendered, or why rendering failed.
 */
import type { FetchResponse } from '../fetch/fetcher.ts';
import type { Extracted, ParseJob } from '../parse/index.ts';
import type { RenderPolicy } from './policy.ts';
import type { RenderService } from './service.ts';

export type RenderDeps = { readonly policy: RenderPolicy; readonly service: RenderService };

export type RenderedPage = {
  readonly extracted: Extracted;
  /** Why the page was rendered (it was, and the rendered page is `extracted`). */
  readonly rendered?: string;
  /** Why it needed a browser, and how rendering failed: the page is recorded as failed. */
  readonly failed?: string;
  /** Milliseconds in the browser. */
  readonly ms?: number;
};

/** A response a browser could render: an HTML page (not a document, not a sitemap). */
function renderable(res: FetchResponse): boolean {
  const type = res.contentType.split(';')[0]!.trim();
  return type === 'text/html' || type === 'application/xhtml+xml' || type === '';
}

/** Parses `job` (the plain page), renders it when it must be, and says what came of it. */
export async function parseAndRender(
  r: RenderDeps | undefined,
  res: FetchResponse,
  job: ParseJob,
  parse: (job: ParseJob) => Promise<Extracted>,
  signal?: AbortSignal,
): Promise<RenderedPage> {
  if (!r?.policy.mayRender || !renderable(res)) return { extracted: await parse(job) };
  const url = new URL(job.url);
  const first = r.policy.upfront(url);
  if (first) {
    const done = await render(r, res, job, parse, first, signal);
    if (done) {
      if ('extracted' in done && done.extracted.kind === 'page') r.policy.learn(url, undefined, done.extracted.page);
      return done;
    }
  }
  const plain = await parse(job);
  if (plain.kind !== 'page' || plain.page.document) return { extracted: plain };
  const reason = first ? undefined : r.policy.afterParse(url, plain.page);
  if (!reason) return { extracted: plain };
  const done = await render(r, res, job, parse, reason, signal);
  if (!done) return { extracted: plain };
  if (done.extracted.kind === 'page' && done.rendered) r.policy.learn(url, plain.page, done.extracted.page);
  return done.failed ? { ...done, extracted: plain } : done;
}

/** Renders the page and parses what the browser made of it; undefined when there is no browser. */
async function render(
  r: RenderDeps,
  res: FetchResponse,
  job: ParseJob,
  parse: (job: ParseJob) => Promise<Extracted>,
  reason: string,
  signal?: AbortSignal,
): Promise<RenderedPage | undefined> {
  const result = await r.service.render({ url: job.url, body: res.body, contentType: res.contentType, status: res.status, headers: res.headers }, signal);
  if (!result) return undefined;
  if (result.kind === 'failed')
    return {
      extracted: { kind: 'unsupported', type: 'text/html' },
      failed: `${reason}; the render failed (${result.reason}): ${result.detail}`,
      ms: result.ms,
    };
  const extracted = await parse({ ...job, body: Buffer.from(result.html), contentType: 'text/html; charset=utf-8', url: result.url, truncated: false });
  return { extracted, rendered: reason, ms: result.ms };
}
