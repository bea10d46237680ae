/** Serves the Hono app over node:http on the configured address; resolves with the URL it serves. */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

export type RunningServer = { readonly url: string; close(): Promise<void> };

/** What serves requests: a Hono app (its fetch). */
export type FetchApp = { readonly fetch: Parameters<typeof serve>[0]['fetch'] };

export function listen(app: FetchApp, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shown = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shown}:${info.port}/`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Keep-alive connections would hold close() open; the search page's poller keeps one.
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new Error(`port ${port} on ${host} is already in use; pass another --port (or 0 for any free port)`) : e),
    );
  });
}
