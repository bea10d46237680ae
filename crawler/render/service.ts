/**
 * The crawl's side of the browser: the renderer (renderer.ts) launched at the first page that needs
 * it — a crawl of plain HTML never starts a browser — and what the crawl is told when there is none:
 * `auto` goes on over HTTP, counting the pages that would have needed it and saying once, clearly,
 * how to get a browser; `always` was refused at start (RenderPolicy.requiresBrowser, checkBrowser).
 */
import type { Log } from '../../lib/log.ts';
import { findBrowser } from './browser.ts';
import { launchRenderer } from './renderer.ts';
import { BrowserUnavailable } from './types.ts';
import type { Renderer, RenderJob, RenderOptions, RenderResult } from './types.ts';

/** The figures the status shows. */
export type RenderFigures = ReturnType<Renderer['stats']> & {
  /** Why there is no browser (null: there is one, or none was needed yet). */
  readonly unavailable: string | null;
  /** Pages that needed a browser while there was none (indexed from their plain HTML). */
  readonly wouldRender: number;
};

const NO_FIGURES = { rendered: 0, failed: 0, waiting: 0, rendering: 0, totalMs: 0, browserRssBytes: 0, restarts: 0 };

export class RenderService {
  private renderer: Promise<Renderer> | undefined;
  private unavailable: string | null = null;
  private wouldRender = 0;
  private readonly examples: string[] = [];

  constructor(
    private readonly options: RenderOptions,
    private readonly log: Log,
  ) {}

  /** Renders a page, or undefined when there is no browser (the caller keeps the plain page). */
  async render(job: RenderJob, signal?: AbortSignal): Promise<RenderResult | undefined> {
    const renderer = await this.launched();
    if (!renderer) {
      if (this.wouldRender++ === 0)
        this.log.warn(
          `${job.url} needs a browser to be read (render.mode auto), and ${this.unavailable}; ` +
            'it and the pages like it are indexed from their plain HTML, counted on the dashboard',
        );
      if (this.examples.length < 5) this.examples.push(job.url);
      return undefined;
    }
    return renderer.render(job, signal);
  }

  figures(): RenderFigures {
    return { ...NO_FIGURES, ...this.current?.stats(), unavailable: this.unavailable, wouldRender: this.wouldRender };
  }

  /** Pages that would have needed a browser, a few of them: for the summary at the end of a crawl. */
  missed(): { count: number; examples: readonly string[] } {
    return { count: this.wouldRender, examples: this.examples };
  }

  async close(): Promise<void> {
    const r = this.renderer;
    this.renderer = undefined;
    await (await r?.catch(() => undefined))?.close();
  }

  private current: Renderer | undefined;

  private async launched(): Promise<Renderer | undefined> {
    if (this.unavailable !== null) return undefined;
    this.renderer ??= launchRenderer(this.options).then((r) => (this.current = r));
    try {
      return await this.renderer;
    } catch (e) {
      this.unavailable = e instanceof BrowserUnavailable ? e.message : `the browser could not start: ${(e as Error).message}`;

      return undefined;
    }
  }
}

/** For `render: always` (or a rule that says so): a clear refusal at start when there is no browser. */
export async function checkBrowser(path: string): Promise<void> {
  if (!(await findBrowser(path)))
    throw new BrowserUnavailable(
      `no browser at ${path} (render.browserPath): install Chromium (Debian: apt-get install chromium) ` +
        'or point render.browserPath at one; or set render.mode to auto or never',
    );
}
