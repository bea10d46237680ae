/** A one-off loopback server around a request handler, for tests that need a single behaviour. */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HandlerServer = { readonly url: string; readonly hits: string[]; close(): Promise<void> };

export async function serveHandler(handler: RequestListener): Promise<HandlerServer> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
