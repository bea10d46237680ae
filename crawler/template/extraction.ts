/**
 * What the parser leaves out of a page's text beyond what its markup says: the selectors the config
 * names for its host (extract.exclude) and the template its host has shown (learner.ts). The
 * crawler asks for both when it makes a page's parse job, and tells the learner what was parsed.
 */
import type { Template, TemplateLearner } from './learner.ts';

/** CSS selectors by host (`docs.example.org`, `host:port`) or `*` for every host. */
export type ExcludeRules = Readonly<Record<string, readonly string[]>>;

/** What a parse job carries for its page's host, and which template decision it is. */
export type PageSettings = { readonly exclude?: string; readonly template?: Uint32Array; readonly version: number };

export class Extraction {
  /** The selector list of each host asked for so far (the host's own and every host's). */
  private readonly lists = new Map<string, string | undefined>();

  constructor(
    private readonly exclude: ExcludeRules,
    /** Absent: templates are not learned (extract.template.enabled false). */
    readonly templates: TemplateLearner | undefined,
  ) {}

  /** For a page of `host` (its identity, as the frontier keeps it) fetched at `url`. */
  forPage(host: string, url: string): PageSettings {
    const template: Template | undefined = this.templates?.of(host);
    const exclude = this.selectorsFor(url);
    return {
      version: template?.version ?? 0,
      ...(template?.blocks.length ? { template: template.blocks } : {}),
      ...(exclude ? { exclude } : {}),
    };
  }

  /** A page of `host` was parsed with the template of `version`; `stored`: its document id, if stored. */
  parsed(host: string, blocks: Uint32Array, version: number, stored: number | undefined): void {
    this.templates?.parsed(host, blocks, version, stored);
  }

  private selectorsFor(url: string): string | undefined {
    const rules = this.exclude;
    if (!Object.keys(rules).length) return undefined;
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      return undefined;
    }
    if (!this.lists.has(host)) {
      const list = [...(rules['*'] ?? []), ...(rules[host] ?? [])];
      this.lists.set(host, list.length ? list.join(', ') : undefined);
    }
    return this.lists.get(host);
  }
}
