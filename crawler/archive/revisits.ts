/**
 * Revisit records resolved: a `revisit` says "the same as that earlier response" — by its record ID
 * (WARC-Refers-To), by its URL and date (WARC-Refers-To-Target-URI/-Date), or, for the
 * identical-payload-digest profile, only by the payload digest it shares. To import the page at the
 * revisit's date, the original's body is read again from where it was seen: each response read is
 * remembered by those three keys (its file and offset: a few dozen bytes, never its body), across
 * all the files of one import, and a WACZ's CDXJ index can answer for a response not read yet.
 */
import { createReadStream } from 'node:fs';
import { WARCParser, type WARCRecord } from 'warcio';

export type Place = { readonly path: string; readonly offset: number; readonly end: number };

/** Responses remembered at most, per key: past them, a revisit of an older one is skipped with its reason. */
const MAX_REMEMBERED = 2_000_000;

export class Originals {
  private readonly byId = new Map<string, Place>();
  private readonly byDigest = new Map<string, Place>();
  private readonly byUrlDate = new Map<string, Place>();

  /**
   * `elsewhere`: a lookup by digest beyond what was read (a WACZ's index); `parent`: the responses of
   * the files read before (a WACZ's own are forgotten with it: an extracted WARC is removed).
   */
  constructor(
    private readonly elsewhere?: (digest: string) => Promise<Place | undefined>,
    private readonly parent?: Originals,
  ) {}

  remember(record: WARCRecord, place: Place): void {
    const id = record.warcHeader('WARC-Record-ID');
    const digest = record.warcPayloadDigest;
    const key = `${record.warcTargetURI} ${record.warcDate}`;
    if (id && this.byId.size < MAX_REMEMBERED) this.byId.set(id, place);
    if (digest && this.byDigest.size < MAX_REMEMBERED) this.byDigest.set(normalDigest(digest), place);
    if (this.byUrlDate.size < MAX_REMEMBERED) this.byUrlDate.set(key, place);
  }

  /** Where the response that `revisit` repeats is, if it was seen. */
  async find(revisit: WARCRecord): Promise<Place | undefined> {
    const id = revisit.warcHeader('WARC-Refers-To');
    const digest = revisit.warcPayloadDigest;
    const known =
      (id ? this.byId.get(id) : undefined) ??
      (revisit.warcRefersToTargetURI ? this.byUrlDate.get(`${revisit.warcRefersToTargetURI} ${revisit.warcRefersToDate}`) : undefined) ??
      (digest ? this.byDigest.get(normalDigest(digest)) : undefined);
    return known ?? (await this.parent?.find(revisit)) ?? (digest && this.elsewhere ? this.elsewhere(digest) : undefined);
  }
}

/** `sha1:ABC…` and `ABC…` are one digest (CDX indexes drop the `sha1:`); base32 is upper-case. */
export function normalDigest(d: string): string {
  return /^sha1:/i.test(d) ? d.slice(5).toUpperCase() : d;
}

/** The response at `place`: its HTTP status, headers and decoded body. */
export async function readOriginal(place: Place): Promise<{ status: number; headers: [string, string][]; body: Buffer } | undefined> {
  const stream = createReadStream(place.path, { start: place.offset, end: place.end - 1 });
  try {
    const parser = new WARCParser(stream);
    const record = await parser.parse();
    if (!record || (record.warcType !== 'response' && record.warcType !== 'resource')) return undefined;
    const body = Buffer.from(await record.readFully(true));
    const headers = record.httpHeaders ? [...record.httpHeaders.headers] : [['content-type', record.warcContentType ?? '']];
    return { status: record.warcType === 'resource' ? 200 : Number(record.httpHeaders?.statusCode ?? 0), headers: headers as [string, string][], body };
  } finally {
    stream.destroy();
  }
}
