/**
 * The crawl database: one SQLite file per data directory, the source of truth for the frontier, the
 * URL records and the documents. WAL mode, so a reader (the search server) never blocks the writer
 * and a crash loses at most the transaction in progress.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { StoreOpenError } from '../store.ts';

export type Db = Database.Database;

/** Bump when the schema changes; `openDb` refuses files from a newer Trawl. */
export const SCHEMA_VERSION = 18;

/** A search's filter as the rollups key it ('' for none): filters is the search's JSON object. */
const FILTER = (filters: string, name: string) => `coalesce(json_extract(${filters}, '$.${name}'), '')`;

/**
 * The search console's rollups (store/analytics-reports.ts): a row a day, query and filters; a row a
 * day and refinement (A, then B). Triggers keep them as searches and clicks are inserted, in the
 * same transaction: a search counts once (its id is its key: INSERT OR IGNORE leaves no row twice),
 * its first click counts it clicked; A's click counts for "A, then B" whichever is written first.
 */
const ROLLUPS = `
CREATE INDEX IF NOT EXISTS searches_understood ON searches (understood, at);
CREATE INDEX IF NOT EXISTS searches_refines ON searches (refines) WHERE refines IS NOT NULL;
CREATE TABLE IF NOT EXISTS search_days (
  day          INTEGER NOT NULL,              -- days since the epoch (UTC)
  query        TEXT    NOT NULL,              -- as understood
  site         TEXT    NOT NULL,
  lang         TEXT    NOT NULL,
  type         TEXT    NOT NULL,
  searches     INTEGER NOT NULL DEFAULT 0,
  clicked      INTEGER NOT NULL DEFAULT 0,    -- searches with a click
  first_clicks INTEGER NOT NULL DEFAULT 0,    -- the sum of their first clicks' positions
  no_results   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, query, site, lang, type)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS search_refinements (
  day          INTEGER NOT NULL,
  from_query   TEXT    NOT NULL,
  to_query     TEXT    NOT NULL,
  searches     INTEGER NOT NULL DEFAULT 0,
  from_clicked INTEGER NOT NULL DEFAULT 0,
  to_clicked   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (day, from_query, to_query)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS searches_rolled_up AFTER INSERT ON searches BEGIN
  INSERT INTO search_days (day, query, site, lang, type, searches, no_results)
    VALUES (NEW.at / 86400000, NEW.understood, ${FILTER('NEW.filters', 'site')}, ${FILTER('NEW.filters', 'lang')}, ${FILTER('NEW.filters', 'type')},
            1, NEW.total = 0)
    ON CONFLICT DO UPDATE SET searches = searches + 1, no_results = no_results + excluded.no_results;
  INSERT INTO search_refinements (day, from_query, to_query, searches, from_clicked)
    SELECT NEW.at / 86400000, a.understood, NEW.understood, 1, EXISTS (SELECT 1 FROM search_clicks WHERE search_id = a.id)
    FROM searches a WHERE a.id = NEW.refines AND a.understood <> NEW.understood
    ON CONFLICT DO UPDATE SET searches = searches + 1, from_clicked = from_clicked + excluded.from_clicked;
END;
CREATE TRIGGER IF NOT EXISTS clicks_rolled_up AFTER INSERT ON search_clicks
WHEN NOT EXISTS (SELECT 1 FROM search_clicks WHERE search_id = NEW.search_id AND rowid <> NEW.rowid) BEGIN
  UPDATE search_days SET clicked = clicked + 1, first_clicks = first_clicks + NEW.position
    WHERE (day, query, site, lang, type) =
      (SELECT at / 86400000, understood, ${FILTER('filters', 'site')}, ${FILTER('filters', 'lang')}, ${FILTER('filters', 'type')}
       FROM searches WHERE id = NEW.search_id);
  UPDATE search_refinements SET to_clicked = to_clicked + 1
    WHERE (day, from_query, to_query) =
      (SELECT b.at / 86400000, a.understood, b.understood FROM searches b JOIN searches a ON a.id = b.refines WHERE b.id = NEW.search_id);
  UPDATE search_refinements SET from_clicked = from_clicked + 1
    WHERE (day, from_query, to_query) IN
      (SELECT b.at / 86400000, a.understood, b.understood FROM searches a JOIN searches b ON b.refines = a.id WHERE a.id = NEW.search_id);
END;
`;

/**
 * The search's levers (store/curation.ts): a row a lever (synonyms, rules) as it is now, and a row a
 * change, numbered in order (AUTOINCREMENT: a number never given twice, so that `version()` — the
 * highest — only grows, whatever the bound deletes). Values are JSON text, exactly as put.
 */
const CURATION = `
CREATE TABLE IF NOT EXISTS curation (
  what  TEXT    PRIMARY KEY,                  -- 'synonyms' | 'rules'
  value TEXT    NOT NULL,                     -- the lines, or the rules, as JSON
  at    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS curation_history (
  n     INTEGER PRIMARY KEY AUTOINCREMENT,
  at    INTEGER NOT NULL,
  what  TEXT    NOT NULL,
  by    TEXT    NOT NULL,                     -- 'config', or a fingerprint of the admin token or login
  value TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS curation_history_what ON curation_history (what, n);
`;

/** Steps from each older schema version to the next; a fresh database gets SCHEMA directly. */
const MIGRATIONS: Record<number, string> = {
  // 1 → 2: the form of a URL that is fetched, when it differs from its identity (host aliases…).
  1: 'ALTER TABLE urls ADD COLUMN fetch_url TEXT',
  // 2 → 3: the sitemap's <lastmod> for the URL, kept for recrawl scheduling.
  2: 'ALTER TABLE urls ADD COLUMN lastmod TEXT',
  // 3 → 4: the URL record's fields for users and recrawl, and the retry schedule; states renamed
  // (fetched → indexed for documents, failed → dead: failed now means "will be retried").
  3: `ALTER TABLE urls ADD COLUMN error TEXT;
      ALTER TABLE urls ADD COLUMN next_attempt_at INTEGER;
      ALTER TABLE urls ADD COLUMN content_type TEXT;
      ALTER TABLE urls ADD COLUMN charset TEXT;
      ALTER TABLE urls ADD COLUMN lang TEXT;
      ALTER TABLE urls ADD COLUMN size INTEGER;
      ALTER TABLE urls ADD COLUMN hash TEXT;
      ALTER TABLE urls ADD COLUMN etag TEXT;
      ALTER TABLE urls ADD COLUMN last_modified TEXT;
      ALTER TABLE urls ADD COLUMN changed_at INTEGER;
      UPDATE urls SET state = 'indexed' WHERE state = 'fetched' AND id IN (SELECT id FROM documents);
      UPDATE urls SET state = 'dead' WHERE state = 'failed';`,
  // 4 → 5: the anchors table (inbound link text), which SCHEMA creates.
  4: 'SELECT 1',
  // 5 → 6: a document's language, for the lang: filter and facet.
  5: 'ALTER TABLE documents ADD COLUMN lang TEXT',
  // 6 → 7: the sequences table (token hashes for exact phrases), which SCHEMA creates.
  6: 'SELECT 1',
  // 7 → 8: each page's revisit schedule (crawler/frontier/revisit.ts), and the hash of its links.
  // Pages held before it get a day, then adapt like the rest.
  7: `ALTER TABLE urls ADD COLUMN revisit_at INTEGER;
      ALTER TABLE urls ADD COLUMN revisit_ms INTEGER;
      ALTER TABLE urls ADD COLUMN links_hash TEXT;
      UPDATE urls SET revisit_at = coalesce(fetched_at, discovered_at) + 86400000 WHERE state IN ('indexed', 'fetched', 'not-modified');`,
  // 8 → 9: focused crawling (crawler/focus): each URL's tunnel count and topic verdict, each
  // document's topic score and classes.
  8: `ALTER TABLE urls ADD COLUMN tunnel INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE urls ADD COLUMN topic_score REAL;
      ALTER TABLE urls ADD COLUMN relevant INTEGER;
      ALTER TABLE documents ADD COLUMN topic TEXT;`,
  // 9 → 10: how many links a page had beyond limits.maxLinksPerPage (not followed; explain shows
  // it), with a partial index (SCHEMA) so that the dashboard counts them without a scan.
  9: 'ALTER TABLE urls ADD COLUMN links_cut INTEGER',
  // 10 → 11: documents beyond HTML (crawler/documents): a document's format and facts — author,
  // dates, pages and where each begins in the text — as JSON.
  10: 'ALTER TABLE documents ADD COLUMN facts TEXT',
  // 11 → 12: pages rendered in a browser (crawler/render): why each was.
  11: 'ALTER TABLE urls ADD COLUMN rendered TEXT',
  // 12 → 13: each document's SimHash (lib/simhash.ts), for folding near-duplicates in results.
  // Documents stored before have none until they are fetched again (they never fold).
  12: 'ALTER TABLE documents ADD COLUMN simhash TEXT',
  // 13 → 14: the page a URL was first found on (its links queued it), for the dashboard's broken
  // links. URLs seen before have none.
  13: 'ALTER TABLE urls ADD COLUMN found_on INTEGER',
  // 14 → 15: the fragment ids of a page's headings, by heading (model/documents.ts headingIds), so
  // that a result links the section a query found. Pages stored before have none until fetched again.
  14: 'ALTER TABLE documents ADD COLUMN heading_ids TEXT',
  // 15 → 16: the search log (searches, search_clicks), as schema 16 had it (17 adds to it).
  15: `CREATE TABLE searches (id TEXT PRIMARY KEY, at INTEGER NOT NULL, session TEXT, source TEXT NOT NULL, query TEXT NOT NULL,
         understood TEXT NOT NULL, filters TEXT NOT NULL, page INTEGER NOT NULL, total INTEGER NOT NULL, shown TEXT NOT NULL,
         took_ms REAL NOT NULL, prefixes TEXT NOT NULL);
       CREATE TABLE search_clicks (search_id TEXT NOT NULL, at INTEGER NOT NULL, position INTEGER NOT NULL, url TEXT NOT NULL);`,
  // 16 → 17: the console's rollups (search_days, search_refinements, kept by triggers) and a search's
  // `refines`. Searches logged before are not in the rollups: they are rolled up once, here.
  16: `ALTER TABLE searches ADD COLUMN refines TEXT;
       ${ROLLUPS}
       INSERT INTO search_days (day, query, site, lang, type, searches, no_results)
         SELECT at / 86400000, understood, ${FILTER('filters', 'site')}, ${FILTER('filters', 'lang')}, ${FILTER('filters', 'type')}, count(*), sum(total = 0)
         FROM searches GROUP BY 1, 2, 3, 4, 5;
       UPDATE search_days SET clicked = f.n, first_clicks = f.positions FROM (
         SELECT s.at / 86400000 AS day, s.understood AS query, ${FILTER('s.filters', 'site')} AS site, ${FILTER('s.filters', 'lang')} AS lang,
                ${FILTER('s.filters', 'type')} AS type, count(*) AS n, sum(c.position) AS positions
         FROM searches s JOIN search_clicks c ON c.search_id = s.id
         WHERE c.rowid = (SELECT min(rowid) FROM search_clicks WHERE search_id = s.id) GROUP BY 1, 2, 3, 4, 5) f
       WHERE (search_days.day, search_days.query, search_days.site, search_days.lang, search_days.type) = (f.day, f.query, f.site, f.lang, f.type);`,
  // 17 → 18: the search's levers, synonyms and rules, with their history.
  17: CURATION,
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS urls (
  id            INTEGER PRIMARY KEY,
  url           TEXT    NOT NULL UNIQUE,      -- normalized form: the URL's identity
  fetch_url     TEXT,                         -- what is fetched, when it differs from url
  host          TEXT    NOT NULL,             -- host[:port], the politeness key
  depth         INTEGER NOT NULL,
  state         TEXT    NOT NULL,             -- see UrlState in model/urls.ts
  reason        TEXT,                         -- why excluded/failed/dead, or what it redirects to
  error         TEXT,                         -- stable error code (model/errors.ts) when failed/dead
  http_status   INTEGER,
  hops          INTEGER NOT NULL DEFAULT 0,   -- redirect hops that led to this URL
  attempts      INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,                    -- when a failed URL is tried again
  discovered_at INTEGER NOT NULL,             -- first seen
  fetched_at    INTEGER,                      -- last fetched
  changed_at    INTEGER,                      -- last time its content hash changed
  content_type  TEXT,
  charset       TEXT,
  lang          TEXT,
  size          INTEGER,                      -- body bytes (after decompression)
  hash          TEXT,                         -- content hash (title and text)
  etag          TEXT,
  last_modified TEXT,
  lastmod       TEXT,                         -- <lastmod> from a sitemap, as written there
  revisit_at    INTEGER,                      -- when the page is due again; NULL: not scheduled
  revisit_ms    INTEGER,                      -- its revisit interval, adapted at each fetch
  links_hash    TEXT,                         -- hash of the links it was last seen with (a recrawl
                                              -- that finds the same skips them)
  tunnel        INTEGER NOT NULL DEFAULT 0,   -- focused crawl: pages not relevant in a row that led here
  topic_score   REAL,                         -- focused crawl: the page's score against the topic
  relevant      INTEGER,                      -- focused crawl: 1 relevant, 0 not; NULL: not judged
  links_cut     INTEGER,                      -- links the page had beyond limits.maxLinksPerPage, not followed
  rendered      TEXT,                         -- why the page was rendered in a browser at its last fetch (NULL: it was not)
  found_on      INTEGER                       -- urls.id of the page whose links first queued it (NULL: a seed, or not recorded)
);
CREATE INDEX IF NOT EXISTS urls_queue ON urls(host, depth, id) WHERE state = 'queued';
CREATE INDEX IF NOT EXISTS urls_retry ON urls(host, next_attempt_at) WHERE state = 'failed';
CREATE INDEX IF NOT EXISTS urls_retry_at ON urls(next_attempt_at) WHERE state = 'failed';
CREATE INDEX IF NOT EXISTS urls_state ON urls(state);
CREATE INDEX IF NOT EXISTS urls_revisit ON urls(host, revisit_at) WHERE revisit_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS urls_revisit_at ON urls(revisit_at) WHERE revisit_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS urls_links_cut ON urls(links_cut) WHERE links_cut IS NOT NULL;

CREATE TABLE IF NOT EXISTS documents (
  id           INTEGER PRIMARY KEY,           -- = urls.id
  url          TEXT    NOT NULL,
  title        TEXT    NOT NULL,
  description  TEXT    NOT NULL,
  headings     TEXT    NOT NULL,              -- one heading a line
  text         TEXT    NOT NULL,
  content_type TEXT    NOT NULL,
  bytes        INTEGER NOT NULL,
  truncated    INTEGER NOT NULL,
  http_status  INTEGER NOT NULL,
  fetched_at   INTEGER NOT NULL,
  hash         TEXT    NOT NULL,
  lang         TEXT,                          -- <html lang> or Content-Language, as given
  topic        TEXT,                          -- focused crawl: {"score", "classes": [{"name", "score"}]}
  facts        TEXT,                          -- a document that is not HTML: DocumentFacts (model/documents.ts) as JSON
  simhash      TEXT,                          -- SimHash of the text, 16 hex digits (NULL: too short to have one)
  heading_ids  TEXT                           -- [[heading, fragment id], …] as JSON (NULL: no heading has an id)
);

CREATE INDEX IF NOT EXISTS documents_hash ON documents(hash);

-- A document's terms in order, hashed (indexer/ingest/sequence.ts), for exact phrases: written with the
-- index's analysis, dropped whenever the document is replaced or removed. \`stemming\`: the
-- tokenizing it was made with (index.stemming); another is not used.
CREATE TABLE IF NOT EXISTS sequences (
  id       INTEGER PRIMARY KEY,               -- = documents.id
  stemming TEXT NOT NULL,
  tokens   BLOB NOT NULL                      -- 32-bit hashes, little-endian
);

-- The content-seen test: a URL whose content is already stored under another URL points to that
-- document instead of becoming a second one. The document keeps all its URLs.
CREATE TABLE IF NOT EXISTS duplicates (
  url_id INTEGER PRIMARY KEY,                 -- the URL record that had the same content
  doc_id INTEGER NOT NULL                     -- the document that holds it
);
CREATE INDEX IF NOT EXISTS duplicates_doc ON duplicates(doc_id);

-- Every change to documents, in order. The index records the last seq it flushed and replays the
-- rest on start, so a crash at any moment loses no searchable page.
CREATE TABLE IF NOT EXISTS changes (
  seq    INTEGER PRIMARY KEY AUTOINCREMENT,
  doc_id INTEGER NOT NULL,
  op     TEXT    NOT NULL                     -- 'put' | 'remove'
);

CREATE TABLE IF NOT EXISTS seeds (url TEXT PRIMARY KEY, added_at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS robots (
  host       TEXT PRIMARY KEY,
  fetched_at INTEGER NOT NULL,
  status     INTEGER NOT NULL,                -- HTTP status, or 0 when unreachable
  body       TEXT    NOT NULL
);

CREATE TABLE IF NOT EXISTS rejections (reason TEXT PRIMARY KEY, count INTEGER NOT NULL);
-- The latest archived response of each URL (crawler/archive: WARC files in the data directory).
CREATE TABLE IF NOT EXISTS archive (
  url_id    INTEGER PRIMARY KEY,               -- = urls.id
  file      TEXT    NOT NULL,
  offset    INTEGER NOT NULL,
  length    INTEGER NOT NULL,
  record_id TEXT    NOT NULL,
  date      TEXT    NOT NULL,
  digest    TEXT
);
-- Inbound links: how many links carry \`text\` to the URL \`target\` (an identity, known or not
-- yet fetched). The index reads a page's inbound anchor text from here.
-- The search log (store/analytics.ts): a search, its page's URLs and its prefixes as JSON arrays.
CREATE TABLE IF NOT EXISTS searches (
  id         TEXT    PRIMARY KEY,
  at         INTEGER NOT NULL,
  session    TEXT,
  source     TEXT    NOT NULL,
  query      TEXT    NOT NULL,
  understood TEXT    NOT NULL,
  filters    TEXT    NOT NULL,
  page       INTEGER NOT NULL,
  total      INTEGER NOT NULL,
  shown      TEXT    NOT NULL,
  took_ms    REAL    NOT NULL,
  prefixes   TEXT    NOT NULL,
  refines    TEXT                          -- the search of the session this one followed (model/analytics.ts)
);
CREATE INDEX IF NOT EXISTS searches_at ON searches (at);
CREATE TABLE IF NOT EXISTS search_clicks (
  search_id TEXT    NOT NULL,
  at        INTEGER NOT NULL,
  position  INTEGER NOT NULL,
  url       TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS search_clicks_search ON search_clicks (search_id);
${ROLLUPS}

${CURATION}

CREATE TABLE IF NOT EXISTS anchors (
  target TEXT NOT NULL,
  text TEXT NOT NULL,
  links INTEGER NOT NULL,
  PRIMARY KEY (target, text)
) WITHOUT ROWID;
`;

// (Shared by every backend: a crawl that cannot be opened as asked — missing, too new, too old for a reader.)
export { StoreOpenError };

export type OpenDbOptions = {
  /**
   * Read only: no schema change, no write of any kind — a reader (trawl search, serve, export)
   * must never write to the database of a live crawl. The file must exist.
   */
  readonly readOnly?: boolean;
};

/**
 * Opens the crawl database. The writer creates it if needed and migrates older schemas; a reader
 * opens an existing file read-only and refuses one it cannot read as it is. The busy timeout is
 * set before anything else reads: a reader opening while the writer commits waits for it instead
 * of failing with "database is locked".
 */
export function openDb(file: string, options: OpenDbOptions = {}): Db {
  const readOnly = options.readOnly === true;
  let db: Db;
  try {
    db = new Database(file, readOnly ? { readonly: true, fileMustExist: true } : {});
  } catch (e) {
    throw new StoreOpenError(`cannot open the crawl database ${file}: ${(e as Error).message}`);
  }
  try {
    db.pragma('busy_timeout = 5000');
    // Queries read documents and token sequences row by row (a phrase query, a few hundred): mapped
    // into memory, a read costs no system call (bench/index: phrase p50 ~6 → ~5 ms at 100,000
    // documents). Up to 1 GiB is mapped; the rest is read as usual.
    db.pragma('mmap_size = 1073741824');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new StoreOpenError(
        `${file} was written by a newer Trawl (schema ${version}; this one knows ${SCHEMA_VERSION}). Upgrade Trawl or use another data directory.`,
      );
    }
    if (readOnly) {
      if (version < SCHEMA_VERSION) {
        throw new StoreOpenError(
          `${file} was written by an older Trawl (schema ${version}; this one reads ${SCHEMA_VERSION}): ` +
            'run trawl crawl or trawl start on it once to upgrade it',
        );
      }
      return db;
    }
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.transaction(() => {
      for (let v = version; v > 0 && v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** The schema version of a crawl database file, read without changing it (0: no file, or an empty one). */
export function fileSchemaVersion(file: string): number {
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}
