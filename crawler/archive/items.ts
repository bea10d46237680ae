/** What reading an archive file yields (read.ts for WARC, arc.ts for ARC). */

export type Capture = {
  readonly kind: 'capture';
  readonly url: string;
  readonly date: number;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly truncated: boolean;
};
export type Skipped = { readonly kind: 'skipped'; readonly reason: string; readonly url?: string };
export type Progress = { readonly kind: 'progress'; readonly bytes: number };
/** Bytes that are not a complete record: `at` is an offset in the file (or in a WACZ's WARC). */
export type Damage = { readonly at: number; readonly reason: string };
export type Ended = {
  readonly kind: 'end';
  /** `WARC 1.1`, `WARC 1.0`, `WARC 1.0 and 1.1`, `ARC`, or `unknown` (nothing readable). */
  readonly format: string;
  readonly compressed: boolean;
  /** Records read, by WARC-Type (`arc` for ARC records). */
  readonly records: Readonly<Record<string, number>>;
  /** Empty when the file was read cleanly to its end. */
  readonly damage: readonly Damage[];
};
export type ArchiveItem = Capture | Skipped | Progress | Ended;

/** Bytes of a file: a whole WARC, or one stored inside a WACZ. Offsets told are from `start`. */
export type ArchiveSource = { readonly path: string; readonly start: number; readonly end: number };
