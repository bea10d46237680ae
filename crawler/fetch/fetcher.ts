/**
 * The fetcher: one GET over undici's keep-alive pools, with connect/headers/body timeouts, a body
 * cap applied after decompression (so a gzip bomb stops at the cap), and no automatic redirects —
 * the crawler follows each hop itself so that every hop is filtered and recorded.
 */
import { isIP } from 'node:net';
import { undici } from './undici-parts.ts';
import { createTransport, type Transport, type TransportOptions } from './transport.ts';
import type { AddressPolicy } from './address-policy.ts';
import type { RequestAuth } from '../auth/types.ts';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';

export type FetchOptions = {
  readonly userAgent: string;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  /** Sockets kept per origin: as many as the scheduler lets run at once (perHost.maxConnections). */
  readonly connectionsPerOrigin?: number;
  /** Which addresses connections may go to (fetch.allowPrivateAddresses); default: any. */
  readonly addresses?: AddressPolicy;
  /**
   * Documents (PDF, Office…) may be larger than pages: `maxBytes` for a response that `is` one,
   * told from its Content-Type, its URL and its first bytes. One whose Content-Length is over it
   * is not read at all.
   */
  readonly documents?: { readonly maxBytes: number; readonly is: (contentType: string, head: Uint8Array, url: string) => boolean };
  /** How requests leave on a company network: proxies, extra CAs, hosts whose certificate is not checked (transport.ts). */
  readonly network?: Pick<TransportOptions, 'proxy' | 'env' | 'ca' | 'insecureHosts'>;
  /** Keep each response's bytes as they came, and the request's headers, for a WARC archive (crawler/archive). */
  readonly keepRaw?: boolean;
  /** Credentials per scope (crawler/auth): asked before and told after every request. */
  readonly auth?: RequestAuth;
};

/** Stable codes for failures below HTTP; each maps to a retry policy in the crawler. */
export type FetchErrorCode = 'timeout' | 'dns' | 'refused' | 'reset' | 'tls' | 'bad-response' | 'blocked-address' | 'proxy' | 'aborted' | 'other';

export type FetchResponse = {
  readonly kind: 'response';
  readonly status: number;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** The body was longer than its cap (`maxBodyBytes`, or a document's) and was cut — or, over a document's cap by its Content-Length, not read. */
  readonly truncated: boolean;
  /** Raw bytes received (before decompression). */
  readonly wireBytes: number;
  readonly location?: string;
  readonly retryAfterMs?: number;
  /** Set-Cookie headers, each as sent. */
  readonly setCookies?: readonly string[];
  /** The credentials of the URL's auth scope were refused, or its login failed: why (never a secret). */
  readonly authFailure?: string;
  /**
   * With keepRaw: the body as it came (before Content-Encoding was undone), the request's headers
   * (credentials left out), the response's headers as received.
   */
  readonly raw?: {
    readonly body: Buffer;
    readonly requestHeaders: Readonly<Record<string, string>>;
    readonly rawHeaders: Readonly<Record<string, string | string[] | undefined>>;
  };
};

export type FetchFailure = { readonly kind: 'error'; readonly code: FetchErrorCode; readonly message: string };

export type FetchResult = FetchResponse | FetchFailure;

/** Validators of a stored copy, for a conditional GET. */
export type Conditional = { readonly etag?: string | undefined; readonly lastModified?: string | undefined };

/** What the crawl asks of a fetcher: one GET, conditional for a copy Trawl holds (Fetcher, over undici, is the one Trawl runs). */
export interface PageFetcher {
  /** GETs `url`; never throws: a failure is a FetchFailure with its code (`aborted` once `signal` is). */
  fetch(url: string, signal?: AbortSignal, conditional?: Conditional): Promise<FetchResult>;
}

export class Fetcher implements PageFetcher {
  private readonly transport: Transport;

  constructor(private readonly opts: FetchOptions) {
    this.transport = createTransport({
      ...opts.network,
      timeoutMs: opts.timeoutMs,
      connectionsPerOrigin: opts.connectionsPerOrigin ?? 8,
      // The address policy's lookup runs for every direct connection: it sees what DNS answered.
      ...(opts.addresses ? { lookup: opts.addresses.lookup } : {}),
    });
  }

  /**
   * GETs `url`. With `conditional` (the validators of the copy Trawl holds), the request is
   * conditional: a 304 answer has no body (RFC 9110 §13.1).
   */
  async fetch(url: string, signal?: AbortSignal, conditional?: Conditional): Promise<FetchResult> {
    const auth = this.opts.auth;
    if (!auth) return this.fetchOnce(url, signal, conditional, {});
    // Credentials of the scope that covers this URL (none for others); asked again once when the
    // scope says so (a Digest challenge; a session that ended and was renewed).
    for (let attempt = 0; ; attempt++) {
      const res = await this.fetchOnce(url, signal, conditional, await auth.headersFor(url, 'GET'));
      if (res.kind === 'error') return res;
      const verdict = await auth.onResponse(url, { status: res.status, headers: res.headers, setCookies: res.setCookies ?? [] }, attempt);
      if (verdict === 'ok') return res;
      if (verdict !== 'again') return { ...res, authFailure: verdict.refused };
      if (attempt >= 1) return { ...res, authFailure: 'the server kept asking for credentials' };
    }
  }

  private async fetchOnce(
    url: string,
    signal: AbortSignal | undefined,
    conditional: Conditional | undefined,
    authHeaders: Readonly<Record<string, string>>,
  ): Promise<FetchResult> {
    const refused = this.refusedLiteral(url);
    if (refused) return { kind: 'error', code: 'blocked-address', message: refused };
    const overall = AbortSignal.timeout(this.opts.timeoutMs * 2);
    const combined = signal ? AbortSignal.any([signal, overall]) : overall;
    try {
      const requestHeaders: Record<string, string> = {
        'user-agent': this.opts.userAgent,
        accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
        ...(conditional?.etag ? { 'if-none-match': conditional.etag } : {}),
        ...(conditional?.lastModified ? { 'if-modified-since': conditional.lastModified } : {}),
        ...authHeaders,
      };
      const target = new URL(url);
      const res = await undici().request(target, {
        method: 'GET',
        dispatcher: this.transport.dispatcherFor(target),
        signal: combined,
        headers: requestHeaders,
      });
      const headers = flattenHeaders(res.headers);
      const setCookies = cookiesOf(res.headers);
      const location = headers.location;
      const retryAfterMs = parseRetryAfter(headers['retry-after']);
      const isRedirect = res.statusCode >= 300 && res.statusCode < 400 && location !== undefined;
      // Bodies of redirects and errors are not needed: drain a little, keep the connection.
      const contentType = (headers['content-type'] ?? '').toLowerCase();
      const skip = isRedirect || res.statusCode >= 400 || this.overDocumentCap(contentType, headers['content-length'], url);
      let read: { body: Buffer; truncated: boolean; wireBytes: number; raw?: Buffer };
      if (skip) {
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        read = { body: Buffer.alloc(0), truncated: !isRedirect && res.statusCode < 400, wireBytes: 0 };
      } else read = await readCapped(res.body, headers['content-encoding'], (head) => this.capFor(contentType, head, url), this.opts.keepRaw);
      const { body, truncated, wireBytes } = read;
      return {
        kind: 'response',
        status: res.statusCode,
        contentType,
        headers,
        body,
        truncated,
        wireBytes,
        ...(location !== undefined ? { location } : {}),
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        setCookies,
        ...(this.opts.keepRaw
          ? { raw: { body: read.raw ?? Buffer.alloc(0), requestHeaders: archivable(requestHeaders, Object.keys(authHeaders)), rawHeaders: res.headers } }
          : {}),
      };
    } catch (e) {
      return { kind: 'error', ...classify(e, signal) };
    }
  }

  /**
   * One plain request for a form login (crawler/auth): no credentials added, no redirect followed,
   * the Set-Cookie headers kept apart, the body as text (at most 2 MB).
   */
  async send(
    method: 'GET' | 'POST',
    url: string,
    headers: Readonly<Record<string, string>>,
    body?: string,
  ): Promise<{ status: number; headers: Record<string, string>; setCookies: string[]; text: string } | { error: string }> {
    const refused = this.refusedLiteral(url);
    if (refused) return { error: `blocked-address: ${refused}` };
    try {
      const target = new URL(url);
      const res = await undici().request(target, {
        method,
        dispatcher: this.transport.dispatcherFor(target),
        signal: AbortSignal.timeout(this.opts.timeoutMs * 2),
        headers: { 'user-agent': this.opts.userAgent, 'accept-encoding': 'gzip, deflate, br', ...headers },
        ...(body !== undefined ? { body } : {}),
      });
      const h = flattenHeaders(res.headers);
      const { body: bytes } = await readCapped(res.body, h['content-encoding'], () => 2 * 1024 * 1024);
      return { status: res.statusCode, headers: h, setCookies: cookiesOf(res.headers), text: bytes.toString('utf8') };
    } catch (e) {
      const c = classify(e);
      return { error: `${c.code}: ${c.message}` };
    }
  }

  /**
   * A request made for a page being rendered (crawler/render): a script, an XHR, a stylesheet —
   * any method, through the same pools and address policy as the crawl's own requests, its body
   * cut at `maxBytes` (the page's budget). Redirects are answered, not followed: the browser follows.
   */
  async subrequest(
    url: string,
    init: { readonly method: string; readonly headers: Readonly<Record<string, string>>; readonly body?: Uint8Array },
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer; truncated: boolean } | { error: string }> {
    const refused = this.refusedLiteral(url);
    if (refused) return { error: `blocked-address: ${refused}` };
    const overall = AbortSignal.timeout(this.opts.timeoutMs);
    try {
      const target = new URL(url);
      const res = await undici().request(target, {
        method: init.method as 'GET',
        dispatcher: this.transport.dispatcherFor(target),
        signal: signal ? AbortSignal.any([signal, overall]) : overall,
        // (A page behind a login asks for its data with the scope's credentials, as the browser would.)
        headers: {
          ...init.headers,
          ...(await this.opts.auth?.headersFor(url, init.method)),
          'user-agent': this.opts.userAgent,
          'accept-encoding': 'gzip, deflate, br',
        },
        ...(init.body && init.method !== 'GET' && init.method !== 'HEAD' ? { body: Buffer.from(init.body) } : {}),
      });
      const headers = flattenHeaders(res.headers);
      const { body, truncated } = await readCapped(res.body, headers['content-encoding'], () => maxBytes);
      // The body is handed over decompressed: its encoding and length headers no longer hold.
      delete headers['content-encoding'];
      delete headers['content-length'];
      return { status: res.statusCode, headers, body, truncated };
    } catch (e) {
      const c = classify(e, signal);
      return { error: `${c.code}: ${c.message}` };
    }
  }

  /** How requests leave (direct, through which proxy…), for the log: never a password. */
  describeNetwork(): string {
    return this.transport.describe();
  }

  /** The credentials per scope it sends, if any. */
  get auth(): RequestAuth | undefined {
    return this.opts.auth;
  }

  async close(): Promise<void> {
    await this.transport.close().catch(() => undefined);
  }

  /** The body cap of a response whose body begins with `head`. */
  private capFor(contentType: string, head: Uint8Array, url: string): number {
    const d = this.opts.documents;
    return d?.is(contentType, head, url) ? Math.max(d.maxBytes, this.opts.maxBodyBytes) : this.opts.maxBodyBytes;
  }

  /** A document whose Content-Length says it is over the documents' cap: not worth a byte. */
  private overDocumentCap(contentType: string, contentLength: string | undefined, url: string): boolean {
    const d = this.opts.documents;
    const length = Number(contentLength);
    return !!d && Number.isFinite(length) && length > Math.max(d.maxBytes, this.opts.maxBodyBytes) && d.is(contentType, new Uint8Array(0), url);
  }

  /** An IP-literal host (no DNS lookup, so no lookup check) that the address policy refuses: why. */
  private refusedLiteral(url: string): string | undefined {
    if (!this.opts.addresses) return undefined;
    let host: string;
    try {
      host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return undefined;
    }
    if (!isIP(host)) return undefined;
    const v = this.opts.addresses.check(host);
    return v.ok ? undefined : v.reason;
  }
}

/** Reads a body up to a cap decided by its first bytes (`capFor`), after decompression. */
async function readCapped(
  body: Readable,
  encoding: string | undefined,
  capFor: (head: Uint8Array) => number,
  keepRaw = false,
): Promise<{ body: Buffer; truncated: boolean; wireBytes: number; raw?: Buffer }> {
  let wireBytes = 0;
  const decoder = decompressor(encoding);
  // The bytes as they came (still compressed), for an archive that keeps them so (crawler/archive).
  const rawChunks: Buffer[] | undefined = keepRaw && decoder ? [] : undefined;
  body.on('data', (c: Buffer) => {
    wireBytes += c.length;
    rawChunks?.push(c);
  });
  const source: Readable = decoder ? body.pipe(decoder) : body;
  if (decoder) body.on('error', (e) => decoder.destroy(e));
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  let max = -1;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    if (max < 0) max = capFor(chunk);
    if (size + chunk.length > max) {
      chunks.push(chunk.subarray(0, max - size));
      size = max;
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (truncated) {
    body.destroy();
    decoder?.destroy();
  }
  const decoded = Buffer.concat(chunks, size);
  return { body: decoded, truncated, wireBytes, ...(keepRaw ? { raw: rawChunks ? Buffer.concat(rawChunks) : decoded } : {}) };
}

function decompressor(encoding: string | undefined) {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** Request headers as an archive may keep them: credentials never (a WARC file is shared, copied, published). */
function archivable(headers: Readonly<Record<string, string>>, fromAuth: readonly string[]): Record<string, string> {
  const secret = new Set(fromAuth.map((k) => k.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!secret.has(k.toLowerCase()) && !/^(authorization|cookie|proxy-authorization)$/i.test(k)) out[k] = v;
  return out;
}

/** The Set-Cookie headers of a response, one string each (flattened headers would join them with commas). */
function cookiesOf(h: Record<string, string | string[] | undefined>): string[] {
  const v = h['set-cookie'];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Retry-After is seconds or an HTTP date; returns milliseconds, capped at one hour. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const ms = /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 3_600_000) : undefined;
}

function classify(e: unknown, signal?: AbortSignal): { code: FetchErrorCode; message: string } {
  const err = e as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code ?? '';
  const message = err.message ?? String(e);
  if (signal?.aborted) return { code: 'aborted', message: 'stopped' };
  if (code === 'ERR_BLOCKED_ADDRESS') return { code: 'blocked-address', message };
  if (err.name === 'TimeoutError' || /TIMEOUT/.test(code)) return { code: 'timeout', message };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { code: 'dns', message };
  if (code === 'ECONNREFUSED') return { code: 'refused', message };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return { code: 'reset', message };
  // (A certificate undici cannot verify may come with no code of its own, only in the message.)
  if (/CERT|SSL|TLS/.test(code) || /UNABLE_TO_VERIFY|SELF_SIGNED|CERT_|certificate/i.test(message))
    return {
      code: 'tls',
      message: /UNABLE_TO_VERIFY|SELF_SIGNED/.test(`${code} ${message}`)
        ? `${message} (a private CA: fetch.caFile; a self-signed host: fetch.insecureHosts)`
        : message,
    };
  // The proxy failed, not the host behind it.
  if (/proxy/i.test(message)) return { code: 'proxy', message };
  if (code.startsWith('HPE_') || code === 'Z_DATA_ERROR' || code === 'ERR_PADDING_1') return { code: 'bad-response', message };
  return { code: 'other', message: `${code ? `${code}: ` : ''}${message}` };
}
