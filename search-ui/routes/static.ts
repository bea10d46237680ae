/**
 * The server's static files (static-files.ts): the pages' script, style sheet and icon under
 * `/static/:file`, `/favicon.ico`, and `/widget.js` — the search widget for other sites' pages.
 */
import type { Routes } from '../parts.ts';
import { sendStatic, STATIC_FILES } from '../static-files.ts';

export const staticFiles: Routes = (app) => {
  // Browsers ask for /favicon.ico whatever the page links; answer with the same icon.
  app.get('/favicon.ico', (c) => sendStatic(c, STATIC_FILES.get('favicon.svg')!));
  // The search widget, for pages of other sites (<script src=".../widget.js">): a cross-origin
  // script, which the default Cross-Origin-Resource-Policy (same-origin) would block.
  app.get('/widget.js', (c) => sendStatic(c, STATIC_FILES.get('widget.js')!, { 'cross-origin-resource-policy': 'cross-origin' }));

  app.get('/static/:file', (c) => {
    const f = STATIC_FILES.get(c.req.param('file'));
    return f ? sendStatic(c, f) : c.notFound();
  });
};
