/**
 * Pages stored before their host's template was known, cleaned once it is: the blocks the template
 * names (and the short lines left between them) are taken out of each stored page's text — one
 * line of the stored text is one block (crawler/parse/blocks.ts), so the text is re-derived from
 * itself — its headings likewise, and its hash and SimHash made anew. A changed page goes through
 * the same path as any change: a new copy in the store (with its token sequence; the change log
 * records it) and the index feed. Work is done a host at a time, a page at a time in the main
 * thread's slices (the feed's, lib/slices.ts), so that searches and the crawl never wait long.
 */
import { pageHash } from '../crawler/outcome.ts';
import { inTemplate, withoutTemplate } from '../crawler/parse/blocks.ts';
import type { Template, TemplateLearner } from '../crawler/template/index.ts';
import { analyze } from '../indexer/ingest/analyze.ts';
import type { Log } from '../lib/log.ts';
import { simhash } from '../lib/simhash.ts';
import type { StoredDocument } from '../model/index.ts';
import type { Store } from '../store/index.ts';
import type { IndexFeed } from './index-feed.ts';

export class TemplateCleaner {
  /** Hosts whose every stored page is to be re-read, and single pages (parsed with an older template) by host. */
  private readonly hosts = new Set<string>();
  private readonly pages = new Map<string, Set<number>>();
  private running: Promise<void> | undefined;
  /** Pages whose stored copy was cleaned (this run). */
  cleaned = 0;

  constructor(
    private readonly learner: TemplateLearner,
    private readonly store: Store,
    private readonly feed: IndexFeed,
    private readonly log: Log,
  ) {
    learner.on('learned', (host) => this.queue(host));
    learner.on('stale', (host, id) => this.queue(host, id));
  }

  private stopped = false;

  /** Resolves once nothing is left to clean (tests and benches wait for it). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops after the page being cleaned (the store is about to close); pages left keep their text. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private queue(host: string, id?: number): void {
    if (id === undefined) this.hosts.add(host);
    else if (!this.hosts.has(host)) {
      const ids = this.pages.get(host) ?? new Set<number>();
      ids.add(id);
      this.pages.set(host, ids);
    }
    this.kick();
  }

  /** Runs the queue unless it runs (work queued as a run ends starts the next run). */
  private kick(): void {
    if (this.running) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (!this.stopped && (this.hosts.size || this.pages.size)) this.kick();
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const [host] = this.hosts.size ? this.hosts : this.pages.keys();
      if (host === undefined) return;
      // (A host's whole set of pages covers its single ones.)
      const ids = this.hosts.delete(host) ? await this.store.documents.idsOfHost(host) : [...(this.pages.get(host) ?? [])];
      this.pages.delete(host);
      for (const id of ids) {
        if (this.stopped) return;
        await this.feed.slices.turn();
        // The template as it is now (it may have grown since the host was queued).
        const template = this.learner.of(host);
        try {
          if (await this.clean(id, template)) this.cleaned++;
        } catch (e) {
          this.log.warn(`template: page ${id} of ${host} could not be cleaned (it keeps its text until fetched again): ${(e as Error).message}`);
        }
      }
    }
  }

  /** Cleans one stored page; false when it held none of the template's blocks. */
  private async clean(id: number, template: Template): Promise<boolean> {
    const doc = await this.store.documents.get(id);
    // (A document — PDF, Office — has no template: its text is not made of a site's blocks.)
    if (!doc || doc.document || !template.blocks.length) return false;
    const text = withoutTemplate(doc.text, template.blocks);
    const headings = doc.headings.filter((h) => !inTemplate(template.blocks, h));
    if (text === undefined && headings.length === doc.headings.length) return false;
    const { simhash: _old, ...rest } = doc;
    const body = text ?? doc.text;
    const fingerprint = simhash(body);
    const cleaned: StoredDocument = {
      ...rest,
      text: body,
      headings,
      hash: pageHash({ title: doc.title, text: body }),
      ...(fingerprint ? { simhash: fingerprint } : {}),
    };
    const analysis = analyze(cleaned);
    // The crawl may have stored a newer copy meanwhile (parsed with the template): that one stays.
    if ((await this.store.documents.get(id))?.hash !== doc.hash) return false;
    const seq = await this.store.documents.put(cleaned, this.feed.sequenceOf(analysis));
    await this.feed.put(cleaned, analysis, seq);
    return true;
  }
}
