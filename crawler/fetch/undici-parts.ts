/**
 * The part of undici a crawl uses — four dispatchers and `request` — loaded from undici's own
 * files rather than its index. The index loads all of undici (fetch, WebSocket, caches, mocks,
 * SOCKS, retry and redirect handlers): ~130 ms of every crawl's start on this machine, where these
 * parts take ~35 (issue 23: a crawl's first request within 300 ms of its start).
 *
 * The files are undici 7's (lib/dispatcher/*.js, lib/api/index.js; the package has no `exports`
 * map, so they may be required). Should a release move one, the index is loaded instead — same
 * behaviour, slower start — and `undiciLoadedFrom` says so (a test checks it is 'files').
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

type Dispatcher = Undici.Dispatcher;
type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  readonly method?: Undici.Dispatcher.HttpMethod;
  readonly dispatcher: Dispatcher;
};

export type UndiciParts = {
  readonly Agent: typeof Undici.Agent;
  readonly Pool: typeof Undici.Pool;
  readonly ProxyAgent: typeof Undici.ProxyAgent;
  readonly EnvHttpProxyAgent: typeof Undici.EnvHttpProxyAgent;
  /** undici's `request(url, options)`, always with a dispatcher (never the global one). */
  readonly request: (url: string | URL, options: RequestOptions) => Promise<Undici.Dispatcher.ResponseData>;
};

// (Not named `require`: the bundler would take it for the module system's.)
const load = createRequire(import.meta.url);

function fromFiles(): UndiciParts {
  const api = load('undici/lib/api/index.js') as {
    request: (this: Dispatcher, o: Undici.Dispatcher.RequestOptions) => Promise<Undici.Dispatcher.ResponseData>;
  };
  if (typeof api.request !== 'function') throw new Error('undici/lib/api has no request');
  return {
    Agent: load('undici/lib/dispatcher/agent.js') as typeof Undici.Agent,
    Pool: load('undici/lib/dispatcher/pool.js') as typeof Undici.Pool,
    ProxyAgent: load('undici/lib/dispatcher/proxy-agent.js') as typeof Undici.ProxyAgent,
    EnvHttpProxyAgent: load('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof Undici.EnvHttpProxyAgent,
    // (What undici's index makes of the same function: origin and path from the URL, the dispatcher as `this`.)
    request: (url, { dispatcher, ...o }) => {
      const u = typeof url === 'string' ? new URL(url) : url;
      return api.request.call(dispatcher, { ...o, origin: u.origin, path: `${u.pathname}${u.search}`, method: o.method ?? 'GET' });
    },
  };
}

function fromIndex(): UndiciParts {
  const u = load('undici') as typeof Undici;
  return { Agent: u.Agent, Pool: u.Pool, ProxyAgent: u.ProxyAgent, EnvHttpProxyAgent: u.EnvHttpProxyAgent, request: (url, o) => u.request(url, o) };
}

let loadedFrom: 'files' | 'index' = 'files';
let parts: UndiciParts | undefined;

/** The parts, loaded at the first call. */
export function undici(): UndiciParts {
  if (parts) return parts;
  try {
    parts = fromFiles();
  } catch {
    loadedFrom = 'index';
    parts = fromIndex();
  }
  return parts;
}

/** Where undici() found its parts (after its first call). */
export const undiciLoadedFrom = (): 'files' | 'index' => loadedFrom;
