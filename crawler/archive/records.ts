/**
 * The WARC records of one fetch (ISO 28500, WARC 1.1), made with warcio (Webrecorder's library, the
 * JavaScript port of the warcio the web-archiving world uses): the request as sent (credentials left
 * out), the response as received — its body before Content-Encoding was undone, as the spec wants —
 * or a `revisit` pointing to the response it repeats (a 304, or the same text again).
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { WARCRecord } from 'warcio';

/** warcio, loaded with the first record: a crawl that archives nothing starts without it (issue 23). */
let loading: Promise<typeof import('warcio')> | undefined;
const warcio = () => (loading ??= import('warcio'));

const gzip = promisify(gzipCallback);

const WARC = 'WARC/1.1';
const PROFILE = {
  notModified: 'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
  identical: 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
};

/** Headers that describe the transfer, not the content: the archived body is whole and de-chunked. */
const TRANSFER = new Set(['transfer-encoding', 'connection', 'keep-alive']);

export type Exchange = {
  readonly url: string;
  readonly date: Date;
  readonly status: number;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly responseHeaders: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Uint8Array;
  readonly truncated: boolean;
};

export type Serialized = { readonly bytes: Uint8Array; readonly id: string; readonly digest: string | null };

const EMPTY = new Uint8Array(0);

async function* once(bytes: Uint8Array) {
  if (bytes.length) yield bytes;
}

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return `sha256:${h.digest('hex')}`;
};

/**
 * The record as one gzip member. The digests are node:crypto's (warcio's own make a WebAssembly
 * instance per hash) and the gzip is zlib's on the thread pool, off the crawl's thread (warcio's
 * goes through a web CompressionStream: a new stream and a chain of promises per record); warcio
 * then only lays out the record, digests already in place. `payload` is the record's body.
 */
async function serialized(record: WARCRecord, payload: Uint8Array): Promise<Serialized> {
  const { WARCSerializer } = await warcio();
  const headers = record.warcHeaders.headers;
  if (record.warcType !== 'warcinfo') {
    // (As warcio would: the block is the HTTP head, CRLF, then the payload; a revisit's payload digest is the one it refers to.)
    const head = record.httpHeaders ? new TextEncoder().encode(`${record.httpHeaders.toString()}\r\n`) : EMPTY;
    if (!headers.get('WARC-Block-Digest')) headers.set('WARC-Block-Digest', sha256(head, payload));
    if (record.warcType !== 'revisit' && !headers.get('WARC-Payload-Digest')) headers.set('WARC-Payload-Digest', sha256(payload));
  }
  const bytes = await gzip(await WARCSerializer.serialize(record, { gzip: false }));
  return { bytes, id: record.warcHeader('WARC-Record-ID') ?? '', digest: record.warcHeader('WARC-Payload-Digest') ?? null };
}

/** The response's headers as pairs, repeated ones repeated, the transfer's own left out. */
function headerPairs(h: Exchange['responseHeaders']): [string, string][] {
  return Object.entries(h).flatMap(([k, v]) =>
    v === undefined || TRANSFER.has(k.toLowerCase()) ? [] : (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, x]),
  );
}

export async function requestRecord(x: Exchange, concurrentTo: string): Promise<Serialized> {
  const { WARCRecord } = await warcio();
  const u = new URL(x.url);
  const record = WARCRecord.create(
    {
      url: x.url,
      date: x.date.toISOString(),
      type: 'request',
      warcVersion: WARC,
      statusline: `GET ${u.pathname}${u.search} HTTP/1.1`,
      httpHeaders: { host: u.host, ...x.requestHeaders },
      warcHeaders: { 'WARC-Concurrent-To': concurrentTo },
    },
    once(EMPTY),
  );
  return serialized(record, EMPTY);
}

export async function responseRecord(x: Exchange): Promise<Serialized> {
  const { WARCRecord } = await warcio();
  const record = WARCRecord.create(
    {
      url: x.url,
      date: x.date.toISOString(),
      type: 'response',
      warcVersion: WARC,
      statusline: `HTTP/1.1 ${x.status} ${statusText(x.status)}`,
      httpHeaders: headerPairs(x.responseHeaders) as unknown as Record<string, string>,
      ...(x.truncated ? { warcHeaders: { 'WARC-Truncated': 'length' } } : {}),
    },
    once(x.body),
  );
  return serialized(record, x.body);
}

/** A revisit: the response it repeats, and why (a 304, or the same payload again). */
export async function revisitRecord(
  x: Exchange,
  of: { readonly id: string; readonly url: string; readonly date: string; readonly digest: string | null },
  notModified: boolean,
): Promise<Serialized> {
  const { WARCRecord } = await warcio();
  const record = WARCRecord.create(
    {
      url: x.url,
      date: x.date.toISOString(),
      type: 'revisit',
      warcVersion: WARC,
      refersToUrl: of.url,
      refersToDate: of.date,
      statusline: `HTTP/1.1 ${x.status} ${statusText(x.status)}`,
      httpHeaders: headerPairs(x.responseHeaders) as unknown as Record<string, string>,
      warcHeaders: {
        'WARC-Refers-To': of.id,
        'WARC-Profile': notModified ? PROFILE.notModified : PROFILE.identical,
        ...(of.digest ? { 'WARC-Payload-Digest': of.digest } : {}),
      },
    },
    once(EMPTY),
  );
  return serialized(record, EMPTY);
}

/** The first record of a file: what wrote it, and with which settings. */
export async function warcinfoRecord(fileName: string, info: Readonly<Record<string, string>>): Promise<Uint8Array> {
  const { WARCRecord, WARCSerializer } = await warcio();
  return gzip(
    await WARCSerializer.serialize(
      WARCRecord.createWARCInfo(
        { filename: fileName, warcVersion: WARC },
        { ...info, format: 'WARC File Format 1.1', conformsTo: 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/' },
      ),
      { gzip: false },
    ),
  );
}

function statusText(status: number): string {
  return (
    (
      {
        200: 'OK',
        203: 'Non-Authoritative Information',
        204: 'No Content',
        206: 'Partial Content',
        301: 'Moved Permanently',
        302: 'Found',
        303: 'See Other',
        304: 'Not Modified',
        307: 'Temporary Redirect',
        308: 'Permanent Redirect',
        400: 'Bad Request',
        401: 'Unauthorized',
        403: 'Forbidden',
        404: 'Not Found',
        410: 'Gone',
        429: 'Too Many Requests',
        500: 'Internal Server Error',
        502: 'Bad Gateway',
        503: 'Service Unavailable',
      } as Record<number, string>
    )[status] ?? ''
  );
}

/** A page's extracted text, for a page Trawl holds but never archived (trawl export --format warc). */
export async function conversionRecord(url: string, date: Date, title: string, text: string): Promise<Serialized> {
  const { WARCRecord } = await warcio();
  const body = new TextEncoder().encode(`${title}\n\n${text}`);
  const record = WARCRecord.create(
    { url, date: date.toISOString(), type: 'conversion', warcVersion: WARC, warcHeaders: { 'Content-Type': 'text/plain; charset=utf-8' } },
    once(body),
  );
  return serialized(record, body);
}
