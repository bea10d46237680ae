/**
 * What a fetch comes to: the crawl's policy as one pure function. Given the URL, the response,
 * what the parser and the topic filter made of it and what the store holds, it decides the
 * outcome (the record's next state and why), when the page is due again, and the effects — store
 * or drop the page, follow its links — which the crawler then writes in one commit. No I/O here:
 * every rule of the table below is tested on its own (outcome.test.ts) and in crawls.
 *
 *   transport error            → failed (retry later) | dead                    errors.ts decide()
 *   credentials refused, login failed → failed (auth-failed: retried) | dead
 *   the login page of an auth scope → excluded
 *   304 to a conditional GET   → not-modified; only the fetch time moves
 *   3xx with Location          → redirected; the target is queued; a held page leaves the index
 *   404/410 of a held page     → failed once more ("to be confirmed"), then dead and removed
 *   other 4xx/5xx              → failed | dead by the error's policy
 *   2xx sitemap                → fetched; its URLs queued
 *   2xx unsupported type       → excluded
 *   2xx document refused       → excluded (encrypted, too-large, zip-bomb, empty) | dead, unparsable (damaged)
 *   2xx page that needed a browser, which failed → failed (render-failed: retried) | dead
 *   2xx page: meta refresh → redirected; noindex, off topic, canonical elsewhere, duplicate → excluded
 *             (its links followed unless nofollow); same text → indexed "unchanged"; else indexed, stored
 */
import { createHash } from 'node:crypto';
import type { ErrorCode, FetchMeta, Outcome, QueuedUrl, Revisit, StoredDocument } from '../model/index.ts';
import { clip, decide, ERRORS, fromFetchCode, fromHttpStatus } from './errors.ts';
import type { FetchResponse } from './fetch/fetcher.ts';
import { follows } from './focus/focus.ts';
import { nextInterval, type RevisitChange, type RevisitPolicy } from './frontier/revisit.ts';
import type { Extracted, ParsedPage } from './parse/index.ts';
import { type Decision, EffectsBuilder, type FetchFacts, type OutcomeRules } from './decision.ts';

/** Answers of 404/410 in a row after which a page Trawl holds leaves the index. */
export const GONE_CONFIRMATIONS = 2;
/** The note on a record of why its page was rendered in a browser is cut at this length. */
const MAX_RENDERED_NOTE_CHARS = 300;
/** A language tag (BCP 47) longer than this is cut: the longest registered ones are shorter. */
const MAX_LANGUAGE_TAG_CHARS = 35;

/** The first language tag of a response's Content-Language header, if any. */
export function contentLanguageOf(res: Pick<FetchResponse, 'headers'>): string | undefined {
  return res.headers['content-language']?.split(',')[0]?.trim() || undefined;
}

/** A page's content hash: its title and text (what is indexed; markup changes do not count). */
export function pageHash(page: { readonly title: string; readonly text: string }): string {
  return createHash('sha256').update(page.title).update('\0').update(page.text).digest('hex');
}

/** The decision for one fetch (see the table above). */
export function decideOutcome(f: FetchFacts, rules: OutcomeRules): Decision {
  const fx = new EffectsBuilder();
  let outcome: Outcome;
  const { res } = f;
  if (res.kind === 'error') outcome = failure(f, rules, fromFetchCode(res.code), clip(`${res.code}: ${res.message}`));
  else if (res.status === 304 && f.conditional) {
    fx.touch = true;
    outcome = { kind: 'not-modified', status: 304 };
  } else if (res.authFailure) outcome = failure(f, rules, 'auth-failed', clip(res.authFailure), res.status);
  else if (f.loginPage && res.status < 300) {
    fx.unindex = true;
    outcome = { kind: 'excluded', status: res.status, reason: 'the login page of an auth scope (never indexed)' };
  } else if (f.renderFailed) outcome = failure(f, rules, 'render-failed', clip(f.renderFailed), res.status);
  else if (f.extracted) outcome = onContent(f, res, f.extracted, rules, fx);
  else outcome = onStatus(f, res, rules, fx);
  if (outcome.kind === 'failed' && f.deadHost)
    outcome = { kind: 'dead', ...(outcome.status !== undefined ? { status: outcome.status } : {}), error: f.deadHost.error, reason: f.deadHost.reason };
  const effects = fx.build();
  const heldAfter = f.held && !effects.unindex;
  const change = pageChange(outcome, f.held) ?? (f.held && !heldAfter ? 'gone' : undefined);
  return { outcome, revisit: schedule(f, outcome, rules.revisit, heldAfter), effects, ...(change ? { change } : {}) };
}

/** A response that is not 2xx: a redirect, a retry, or a failure (see the table). */
function onStatus(f: FetchFacts, res: FetchResponse, rules: OutcomeRules, fx: EffectsBuilder): Outcome {
  const { q, held } = f;
  const { status } = res;
  if (status >= 300 && status < 400 && res.location !== undefined) {
    fx.unindex = true;
    return redirect(q, res.location, status, rules, fx);
  }
  if ((status === 404 || status === 410) && held) {
    if (q.attempts < GONE_CONFIRMATIONS)
      return {
        kind: 'failed',
        status,
        error: 'http-4xx',
        reason: `HTTP ${status}: to be confirmed before the page leaves the index`,
        retryAt: f.now + rules.retry.baseDelayMs,
      };
    fx.unindex = true;
    return { kind: 'dead', status, error: 'http-4xx', reason: `HTTP ${status} ${q.attempts} times: gone from the site, removed from the index` };
  }
  return failure(f, rules, fromHttpStatus(status), `HTTP ${status}`, status, res.retryAfterMs);
}

/** A 2xx response, parsed: a sitemap, a type Trawl does not read, a document refused, or a page (see the table). */
function onContent(f: FetchFacts, res: FetchResponse, extracted: Extracted, rules: OutcomeRules, fx: EffectsBuilder): Outcome {
  const { status } = res;
  const meta = responseMeta(res);
  if (extracted.kind === 'unsupported') return { kind: 'excluded', status, reason: `unsupported content type ${extracted.type}`, meta };
  if (extracted.kind === 'refused') {
    // A held copy of a document that cannot be read now leaves the index with its reason.
    fx.unindex = true;
    const reason = clip(`${extracted.reason}: ${extracted.detail}`);
    return extracted.reason === 'damaged' ? { kind: 'dead', status, error: 'unparsable', reason } : { kind: 'excluded', status, reason, meta };
  }
  if (extracted.kind === 'sitemap') return onSitemap(f, res, extracted, meta, fx);
  return onPage(f, res, extracted, meta, rules, fx);
}

/** What any 2xx response tells of itself, kept on the URL record: its type, size and validators. */
function responseMeta(res: FetchResponse): FetchMeta {
  return {
    contentType: mediaType(res) || '(none)',
    size: res.body.length,
    ...(res.headers.etag ? { etag: res.headers.etag } : {}),
    ...(res.headers['last-modified'] ? { lastModified: res.headers['last-modified'] } : {}),
  };
}

/** A sitemap: its pages and sitemaps are queued, and its <lastmod>s may make pages due. */
function onSitemap(f: FetchFacts, res: FetchResponse, sitemap: Extracted & { kind: 'sitemap' }, meta: FetchMeta, fx: EffectsBuilder): Outcome {
  const { q } = f;
  fx.links.push({ links: [...sitemap.pages, ...sitemap.sitemaps.map((url) => ({ url }))], depth: q.depth, base: q.fetchUrl, tunnel: q.tunnel ?? 0 });
  fx.sitemap = true;
  // Its hash tells a revisit whether the sitemap changed.
  const hash = createHash('sha256').update(res.body).digest('hex');
  const note = `sitemap with ${sitemap.pages.length} pages and ${sitemap.sitemaps.length} sitemaps`;
  return { kind: 'fetched', status: res.status, note, meta: { ...meta, hash } };
}

/**
 * A page, in the order of the table: a meta refresh forwards; its links are followed unless it says
 * not to; then it is excluded (noindex, off topic, canonical elsewhere, duplicate), unchanged, or stored.
 */
function onPage(f: FetchFacts, res: FetchResponse, extracted: Extracted & { kind: 'page' }, meta: FetchMeta, rules: OutcomeRules, fx: EffectsBuilder): Outcome {
  const { q, verdict } = f;
  const { status } = res;
  const { page } = extracted;
  const hash = f.hash ?? pageHash(page);
  const lang = pageLanguage(page, res);
  const robots = robotsDirectives(page, res);
  // A meta refresh forwards like an HTTP redirect: the target is queued as the next hop, and
  // this page (a "Redirecting to …" stub, typically) is not indexed.
  if (page.refresh && !robots.nofollow) {
    fx.unindex = true;
    return redirect(q, page.refresh, status, rules, fx);
  }
  // The stored copy's hash (a held page's): the same text again is not stored or indexed again.
  const storedHash = f.held ? (q.hash ?? undefined) : undefined;
  const linksHash = robots.nofollow ? undefined : followLinks(f, page, storedHash, rules, fx);
  const pageMeta: FetchMeta = {
    ...meta,
    ...(extracted.encoding ? { charset: extracted.encoding } : {}),
    hash,
    ...(lang ? { lang } : {}),
    ...(verdict ? { topic: { score: verdict.score, relevant: verdict.relevant } } : {}),
    linksCut: page.linksCut ?? 0,
    ...(f.rendered ? { rendered: f.rendered.slice(0, MAX_RENDERED_NOTE_CHARS) } : {}),
    ...(linksHash !== undefined ? { linksHash } : {}),
  };
  const excluded = exclusionOf(f, page, robots.noindex, rules, fx);
  if (excluded !== undefined) {
    fx.unindex = true;
    return { kind: 'excluded', status, reason: excluded, meta: pageMeta };
  }
  // (The same text judged differently — the topic changed — is stored again with its new classes.)
  if (storedHash === hash && (!verdict || verdict.score === q.topicScore)) {
    fx.touch = true;
    return { kind: 'indexed', status, meta: pageMeta, note: 'unchanged' };
  }
  fx.document = storedDocument(f, res, page, hash, lang);
  return { kind: 'indexed', status, meta: pageMeta };
}

/** The page's language: <html lang>, else the first of Content-Language, else the one the extractor detected (written on the page as `fr-x-detected`). */
function pageLanguage(page: ParsedPage, res: FetchResponse): string | undefined {
  return (page.lang ?? contentLanguageOf(res))?.slice(0, MAX_LANGUAGE_TAG_CHARS) || undefined;
}

/** What the page and its X-Robots-Tag header say of indexing it and following its links. */
function robotsDirectives(page: ParsedPage, res: FetchResponse): { readonly noindex: boolean; readonly nofollow: boolean } {
  const xRobots = (res.headers['x-robots-tag'] ?? '').toLowerCase();
  return { noindex: page.noindex || /\b(noindex|none)\b/.test(xRobots), nofollow: page.nofollow || /\b(nofollow|none)\b/.test(xRobots) };
}

/**
 * Follows the page's links (a focused crawl: a relevant page's, and a little way through others).
 * Returns their hash, for the record, when they are followed.
 */
function followLinks(f: FetchFacts, page: ParsedPage, storedHash: string | undefined, rules: OutcomeRules, fx: EffectsBuilder): string | undefined {
  const { q, verdict } = f;
  const focus = verdict && rules.focus ? follows(rules.focus, verdict.relevant, q.tunnel ?? 0) : { follow: true, tunnel: 0 };
  if (!focus.follow) return undefined;
  const links = rules.followNofollow ? page.links : page.links.filter((l) => !l.nofollow);
  const linksHash = hashLinks(links);
  // A page fetched again with the same links: they were all queued (or turned away) and their
  // anchor text counted when it was last fetched. Counting it again would inflate the link prior.
  if (!(storedHash !== undefined && q.linksHash === linksHash))
    fx.links.push({ links, depth: q.depth + 1, base: q.fetchUrl, source: q.url, tunnel: focus.tunnel });
  return linksHash;
}

/** Why the page is kept out of the index, in the table's order (noindex, off topic, canonical elsewhere, duplicate), or undefined. */
function exclusionOf(f: FetchFacts, page: ParsedPage, noindex: boolean, rules: OutcomeRules, fx: EffectsBuilder): string | undefined {
  const { q, verdict } = f;
  if (noindex) return page.noindex ? 'noindex' : 'noindex (X-Robots-Tag)';
  if (verdict && !verdict.relevant) {
    const { cutoff, classifier } = rules.focus!;
    // (A classifier module may decide by itself, whatever the cutoff.)
    return verdict.score < cutoff
      ? `off topic: score ${verdict.score} below the cutoff ${cutoff}`
      : `off topic: judged not relevant by ${classifier.name} (score ${verdict.score})`;
  }
  // <link rel="canonical"> to another page in scope: that page is indexed instead of this one.
  const canonical = page.canonical ? rules.admit(page.canonical, q.depth) : undefined;
  if (canonical?.ok && canonical.url !== q.url) {
    fx.links.push({ links: [{ url: page.canonical! }], depth: q.depth, base: q.fetchUrl, tunnel: q.tunnel ?? 0 });
    return `canonical is ${canonical.url}`;
  }
  // The content-seen test (Mercator): the same content under another URL is stored once.
  const seen = page.text ? f.sameContent : undefined;
  if (seen && seen.id !== q.id) {
    fx.duplicateOf = seen.id;
    return `duplicate of ${seen.url}`;
  }
  return undefined;
}

/** The page's new copy, as stored and indexed. */
function storedDocument(f: FetchFacts, res: FetchResponse, page: ParsedPage, hash: string, lang: string | undefined): StoredDocument {
  const { q, verdict } = f;
  return {
    id: q.id,
    // The address that answered: it works in a browser even when the identity is an alias.
    url: q.fetchUrl,
    title: page.title,
    description: page.description,
    headings: page.headings,
    ...(page.headingIds ? { headingIds: page.headingIds } : {}),
    text: page.text,
    contentType: mediaType(res) || 'text/html',
    ...(lang ? { lang } : {}),
    bytes: res.body.length,
    truncated: res.truncated,
    httpStatus: res.status,
    fetchedAt: f.now,
    hash,
    ...(verdict ? { topic: { score: verdict.score, classes: verdict.classes } } : {}),
    ...(page.document ? { document: page.document } : {}),
    ...(page.simhash ? { simhash: page.simhash } : {}),
  };
}

/** The response's media type, without its parameters ('' when it has none). */
function mediaType(res: FetchResponse): string {
  return res.contentType.split(';')[0]!.trim();
}

/** A redirect (or a meta refresh): the target is queued as the next hop, if it is admitted. */
function redirect(q: QueuedUrl, location: string, status: number, rules: OutcomeRules, fx: EffectsBuilder): Outcome {
  if (q.hops >= rules.maxRedirects) return { kind: 'dead', status, error: 'too-many-redirects', reason: `more than ${rules.maxRedirects} redirects` };
  const a = rules.admit(location, q.depth, q.fetchUrl);
  if (!a.ok) {
    fx.rejected.set(a.reason, (fx.rejected.get(a.reason) ?? 0) + 1);
    return { kind: 'redirected', status, to: `${a.url} (not followed: ${a.reason})` };
  }
  fx.enqueue.push({ url: a.url, fetchUrl: a.fetchUrl, depth: q.depth, hops: q.hops + 1, tunnel: q.tunnel ?? 0 });
  return { kind: 'redirected', status, to: a.url };
}

/** A failure: retried later if its code allows and attempts are left, else dead. */
function failure(f: FetchFacts, rules: OutcomeRules, error: ErrorCode, reason: string, status?: number, retryAfterMs?: number): Outcome {
  const d = decide(error, f.q.attempts, rules.retry, f.now, retryAfterMs);
  const base = status !== undefined ? { status } : {};
  if (d.state === 'failed') return { kind: 'failed', ...base, error, reason, retryAt: d.retryAt };
  return { kind: 'dead', ...base, error, reason: ERRORS[error].retry ? `${reason} (gave up after ${f.q.attempts} attempts)` : reason };
}

/**
 * When the page is due again: its interval adapts to what this fetch found (changed: sooner;
 * the same: later). Pages and sitemaps are revisited; a held page that failed for now keeps its
 * interval (a temporary failure never drops it). Others are not scheduled.
 */
function schedule(f: FetchFacts, o: Outcome, policy: RevisitPolicy, heldAfter: boolean): Revisit {
  const { q, res, now } = f;
  let change: RevisitChange | undefined = pageChange(o, f.held);
  if (o.kind === 'fetched') change = !q.hash || !o.meta?.hash ? 'new' : q.hash === o.meta.hash ? 'unchanged' : 'changed';
  else if (o.kind === 'dead' && heldAfter) {
    const intervalMs = q.revisitMs ?? nextInterval(policy, 'new', null, {}, now);
    return { at: now + intervalMs, intervalMs };
  }
  if (!change) return null;
  const h = res.kind === 'response' ? res.headers : {};
  const intervalMs = nextInterval(
    policy,
    change,
    q.revisitMs,
    { cacheControl: h['cache-control'], expires: h.expires, date: h.date, lastModified: h['last-modified'], lastmod: q.lastmod },
    now,
  );
  return { at: now + intervalMs, intervalMs };
}

/** What a fetch that ended with `o` found of a page (not a sitemap): undefined when it stored nothing. */
function pageChange(o: Outcome, held: boolean): RevisitChange | undefined {
  if (o.kind === 'not-modified' || (o.kind === 'indexed' && o.note === 'unchanged')) return 'unchanged';
  if (o.kind === 'indexed') return held ? 'changed' : 'new';
  return undefined;
}

/** A page's outgoing links and their anchor text, as one hash. */
function hashLinks(links: readonly { url: string; text?: string }[]): string {
  const h = createHash('sha1');
  for (const l of links)
    h.update(l.url)
      .update('\0')
      .update(l.text ?? '')
      .update('\n');
  return h.digest('base64');
}
