/**
 * Which blocks of text are a host's template — its menus, sidebars, footers — learned from the
 * host's pages as they are parsed: a block (a line of text, known by its hash: parse/blocks.ts)
 * found on at least `share` of the host's pages, once at least `minPages` were seen, is template,
 * and the parser leaves it out of later pages' text. Pages stored before are cleaned by whoever
 * listens to `learned` (the orchestrator: appliance/template-clean.ts).
 *
 * Memory is bounded: per host, at most COUNTERS block counts (Misra–Gries: when the table is full,
 * an unknown block lowers every count by one instead of entering — every block on more than
 * 1/(COUNTERS+1) of the counted blocks stays in the table, and a page gives at most 2 × 128 of
 * them: parse/blocks.ts COUNTED_LINES), and at most `maxHosts` hosts, the least recently seen
 * forgotten first (counted). The template is decided anew when a host's page count reaches
 * minPages, then each time it doubles: stored pages are re-read O(log pages) times, not per page.
 */
import { EventEmitter } from 'node:events';

export type TemplateSettings = {
  /** Pages of a host seen before anything is called its template. */
  readonly minPages: number;
  /** The share of a host's pages a block must be on to be template. */
  readonly share: number;
  /** Hosts whose counts are kept; beyond, the least recently seen is forgotten. */
  readonly maxHosts: number;
};

export const DEFAULT_TEMPLATE_SETTINGS: TemplateSettings = { minPages: 20, share: 0.3, maxHosts: 1000 };

/** Block counts kept per host (~30 KB each). */
export const COUNTERS = 1024;

/** A host's template as the parser gets it: sorted hashes, and which decision it is (0: none yet). */
export type Template = { readonly blocks: Uint32Array; readonly version: number };

type HostTable = {
  pages: number;
  readonly counts: Map<number, number>;
  template: Template;
  /** The page count at which the template is decided next. */
  review: number;
};

export type TemplateEvents = {
  /** `host`'s template gained blocks: its pages stored before (or parsed before it) may hold them. */
  learned: [host: string, template: Template];
  /** A page of `host`, stored as `id`, was parsed with an older template than the host's now. */
  stale: [host: string, id: number];
};

export class TemplateLearner extends EventEmitter<TemplateEvents> {
  private readonly hosts = new Map<string, HostTable>();
  private forgotten = 0;

  constructor(readonly settings: TemplateSettings = DEFAULT_TEMPLATE_SETTINGS) {
    super();
  }

  /** The host's template now (version 0, no blocks: none learned). */
  of(host: string): Template {
    return this.hosts.get(host)?.template ?? NONE;
  }

  /**
   * A page of `host` was parsed with template `version`: its blocks are counted, and the template
   * decided when the count of pages calls for it. `stored`: the id it was stored under, if it was.
   */
  parsed(host: string, blocks: Uint32Array, version: number, stored: number | undefined): void {
    const t = this.table(host);
    t.pages++;
    for (const h of blocks) count(t.counts, h);
    if (t.pages >= t.review) {
      t.review = t.pages * 2;
      this.decide(host, t);
    }
    if (stored !== undefined && version < t.template.version) this.emit('stale', host, stored);
  }

  /** What the dashboard shows: hosts with a template, the blocks in them, hosts forgotten. */
  figures(): { readonly hosts: number; readonly blocks: number; readonly forgotten: number } {
    let hosts = 0;
    let blocks = 0;
    for (const t of this.hosts.values()) {
      if (!t.template.blocks.length) continue;
      hosts++;
      blocks += t.template.blocks.length;
    }
    return { hosts, blocks, forgotten: this.forgotten };
  }

  /** The host's table, made the most recently seen (a Map keeps insertion order). */
  private table(host: string): HostTable {
    let t = this.hosts.get(host);
    if (t) this.hosts.delete(host);
    else {
      t = { pages: 0, counts: new Map(), template: NONE, review: this.settings.minPages };
      if (this.hosts.size >= this.settings.maxHosts) {
        this.hosts.delete(this.hosts.keys().next().value!);
        this.forgotten++;
      }
    }
    this.hosts.set(host, t);
    return t;
  }

  /**
   * Blocks on `share` of the pages become template; one already in stays while on half of that
   * (so that a block near the line does not come and go). Only a template that gained blocks is
   * announced: a block that left it is simply kept in pages parsed from now on.
   */
  private decide(host: string, t: HostTable): void {
    const enter = this.settings.share * t.pages;
    const stay = enter / 2;
    const old = new Set(t.template.blocks);
    const now: number[] = [];
    let gained = false;
    for (const [h, n] of t.counts) {
      if (n >= enter || (n >= stay && old.has(h))) {
        now.push(h);
        if (!old.has(h)) gained = true;
      }
    }
    if (!gained && now.length === old.size) return;
    t.template = { blocks: Uint32Array.from(now).sort(), version: t.template.version + 1 };
    if (gained) this.emit('learned', host, t.template);
  }
}

const NONE: Template = { blocks: new Uint32Array(0), version: 0 };

/** Counts a block (Misra–Gries: see the top). */
function count(counts: Map<number, number>, h: number): void {
  const n = counts.get(h);
  if (n !== undefined) counts.set(h, n + 1);
  else if (counts.size < COUNTERS) counts.set(h, 1);
  else {
    for (const [k, v] of counts) {
      if (v > 1) counts.set(k, v - 1);
      else counts.delete(k);
    }
  }
}
