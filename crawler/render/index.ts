/**
 * Rendering pages that need JavaScript: the renderer's contract and its one implementation over
 * headless Chromium (types.ts, renderer.ts, browser.ts), and the crawl's side of it — whether a
 * page needs a browser (detect.ts, policy.ts), the renderer launched when first needed
 * (service.ts), one page through it inside the pipeline (stage.ts).
 */
export type { RenderJob, RenderOptions, RenderResult, Renderer, RendererStats, RenderFailure, SettledBy, SubFetch } from './types.ts';
export { BrowserUnavailable } from './types.ts';
export { launchRenderer } from './renderer.ts';
export { findBrowser } from './browser.ts';
export { RenderPolicy } from './policy.ts';
export { RenderService, checkBrowser } from './service.ts';
export type { RenderDeps } from './stage.ts';
