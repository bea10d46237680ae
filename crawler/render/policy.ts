/**
 * When to render a page in the browser: `render.mode` (never, auto, always), overridden per host or
 * URL by `render.rules` (the scope rules' HOST:/URL: syntax), and — in `auto` — the detector
 * (detect.ts) plus what each host has taught so far. A host whose rendered pages keep adding what
 * the plain HTML lacks is rendered from the start (no detection, no second parse), one page in
 * SAMPLE_EVERY fetched plain and checked again; a host where rendering keeps adding nothing goes
 * back to plain HTTP, one page in SAMPLE_EVERY still checked. Each decision carries its reason, which
 * the URL's record keeps.
 */
import type { ParsedPage } from '../parse/html.ts';
import { parseScopeRule, ruleMatches, type ScopeRule } from '../urls/scope.ts';
import { needsBrowser } from './detect.ts';

export type RenderMode = 'never' | 'auto' | 'always';

/** `match` as scope rules write it (HOST:regex or URL:regex). */
export type RenderRuleSetting = { readonly match: string; readonly mode: RenderMode };

/** Rendered pages in a row that made a host "rendered from the start", or "plain" when they added nothing. */
const STICK_AFTER = 3;
/** One page in this many of a host with a settled habit is checked again. */
const SAMPLE_EVERY = 10;

type HostHabit = { habit: 'detect' | 'render' | 'plain'; useful: number; useless: number; pages: number };

/** What a host has taught, as the status shows it. */
export type HostRenderView = { readonly host: string; readonly habit: HostHabit['habit']; readonly pages: number };

export class RenderPolicy {
  private readonly rules: { rule: ScopeRule; mode: RenderMode }[];
  private readonly hosts = new Map<string, HostHabit>();

  constructor(
    readonly mode: RenderMode,
    rules: readonly RenderRuleSetting[] = [],
  ) {
    this.rules = rules.map((r) => ({ rule: parseScopeRule(r.match), mode: r.mode }));
  }

  /** Whether any page may ever be rendered (never with `never` and no rule that says otherwise). */
  get mayRender(): boolean {
    return this.mode !== 'never' || this.rules.some((r) => r.mode !== 'never');
  }

  /** Whether some page must be rendered whatever it looks like (`always`, by mode or rule): then a browser is required. */
  get requiresBrowser(): boolean {
    return this.mode === 'always' || this.rules.some((r) => r.mode === 'always');
  }

  /** The mode for a URL, and the rule that set it (if one did). */
  modeOf(url: URL): { mode: RenderMode; rule?: string } {
    const r = this.rules.find((x) => ruleMatches(x.rule, url));
    return r ? { mode: r.mode, rule: r.rule.source } : { mode: this.mode };
  }

  /**
   * Before the page is parsed: render it straight away? The reason if so — `always`, or a host
   * that renders from the start (but for its sample pages, which are parsed plain and checked).
   */
  upfront(url: URL): string | undefined {
    const { mode, rule } = this.modeOf(url);
    if (mode === 'always') return rule ? `render.rules: ${rule}` : 'render: always';
    if (mode === 'never') return undefined;
    const h = this.habit(url.host);
    h.pages++;
    if (h.habit === 'render' && h.pages % SAMPLE_EVERY !== 0) return `its host renders from the start (${h.useful} pages needed a browser)`;
    return undefined;
  }

  /** After the plain parse (auto): does the page need a browser? The reason if so. */
  afterParse(url: URL, page: Pick<ParsedPage, 'text' | 'links' | 'spa'>): string | undefined {
    if (this.modeOf(url).mode !== 'auto') return undefined;
    const h = this.habit(url.host);
    const reason = needsBrowser(page);
    if (h.habit === 'render' && !reason) {
      // A sample page of a host that renders from the start reads fine without: detect again.
      h.habit = 'detect';
      h.useful = 0;
    }
    // A host where rendering adds nothing is trusted over the detector, but for a sample page.
    if (h.habit === 'plain' && h.pages % SAMPLE_EVERY !== 0) return undefined;
    return reason;
  }

  /** What rendering gave, against the plain page (undefined: rendered from the start, nothing to compare). */
  learn(url: URL, plain: Pick<ParsedPage, 'text' | 'links'> | undefined, rendered: Pick<ParsedPage, 'text' | 'links'>): void {
    if (this.modeOf(url).mode !== 'auto') return;
    const h = this.habit(url.host);
    const useful = !plain || rendered.text.length > plain.text.length * 1.2 + 100 || rendered.links.length > plain.links.length + 2;
    if (useful) {
      h.useful++;
      h.useless = 0;
      if (h.useful >= STICK_AFTER) h.habit = 'render';
    } else {
      h.useless++;
      h.useful = 0;
      if (h.useless >= STICK_AFTER) h.habit = 'plain';
    }
  }

  /** Hosts and their habits, those that render first. */
  view(): HostRenderView[] {
    return [...this.hosts]
      .map(([host, h]) => ({ host, habit: h.habit, pages: h.pages }))
      .sort((a, b) => Number(b.habit === 'render') - Number(a.habit === 'render') || b.pages - a.pages);
  }

  private habit(host: string): HostHabit {
    let h = this.hosts.get(host);
    if (!h) this.hosts.set(host, (h = { habit: 'detect', useful: 0, useless: 0, pages: 0 }));
    return h;
  }
}
