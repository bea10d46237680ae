/**
 * Where each URL's latest archived response is (crawler/archive writes WARC files): a later fetch
 * that finds the page unchanged writes a `revisit` record pointing to it, and `trawl export --format
 * warc` copies it.
 */

/** A WARC record in one of the data directory's archive files. */
export type ArchiveRef = {
  /** The file's name in the archive folder (its final name, without `.open`). */
  readonly file: string;
  readonly offset: number;
  readonly length: number;
  /** WARC-Record-ID, e.g. `<urn:uuid:…>`. */
  readonly recordId: string;
  /** WARC-Date (ISO 8601) and WARC-Payload-Digest of the response. */
  readonly date: string;
  readonly digest: string | null;
};

export interface ArchiveStore {
  /** The latest archived response of URL record `urlId`. */
  latest(urlId: number): Promise<ArchiveRef | undefined>;
  /** Records that `ref` is now the latest archived response of `urlId`. */
  put(urlId: number, ref: ArchiveRef): Promise<void>;
}
