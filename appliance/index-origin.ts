/**
 * Where an index's snapshot came from: `origin.json` beside the manifest in the index directory,
 * naming the store whose change log the snapshot was flushed from, and this index as a reader of
 * that log (store/changes.ts). A snapshot replays only from its own store's log: pointed at another
 * store (`--store` changed, a database made anew), the index is rebuilt, never patched with
 * another crawl's changes.
 *
 * It is written after the manifest: a crash between the two leaves the old origin beside the new
 * snapshot, which at worst costs a rebuild — the other order could take one store's snapshot for
 * another's.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type IndexOrigin = {
  /** The change log's identity (ChangeLog.identity()). */
  readonly store: string;
  /** This index as a reader of the log: kept across restarts, so that it holds the log as one reader. */
  readonly reader: string;
};

export const ORIGIN_FILE = 'origin.json';

/** The origin recorded in `indexDir`; undefined when there is none or it cannot be read (an index from before origins were kept). */
export function readOrigin(indexDir: string): IndexOrigin | undefined {
  try {
    const o = JSON.parse(readFileSync(join(indexDir, ORIGIN_FILE), 'utf8')) as Partial<IndexOrigin>;
    return typeof o.store === 'string' && typeof o.reader === 'string' ? { store: o.store, reader: o.reader } : undefined;
  } catch {
    return undefined;
  }
}

/** Records the origin of the snapshot just flushed (atomically: a new file renamed into place). */
export function writeOrigin(indexDir: string, origin: IndexOrigin): void {
  mkdirSync(indexDir, { recursive: true });
  const tmp = join(indexDir, `${ORIGIN_FILE}.tmp`);
  writeFileSync(tmp, JSON.stringify(origin));
  renameSync(tmp, join(indexDir, ORIGIN_FILE));
}

/** A new reader name: where it runs would be nicer to read, but two nodes must never share one. */
export const newReader = (): string => randomUUID();
