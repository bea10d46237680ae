/**
 * The PostgreSQL schema and its migrations. Each migration is a numbered step applied once, in its
 * own transaction, and recorded in `trawl_migrations` — so a database tells which Trawl wrote it,
 * and a newer Trawl brings an older database up to date (`trawl db migrate`, and at every writer's
 * start). Concurrent starts (many workers at once) take an advisory lock: one migrates, the others
 * wait and find nothing left to do.
 *
 * Columns mirror the SQLite schema (store/sqlite/db.ts) with PostgreSQL's types: times in ms and
 * ids are bigint, flags boolean, a document's topic and facts jsonb, token sequences bytea. The
 * text that is sorted or compared — URLs, hosts, states, reasons, anchor text — is COLLATE "C":
 * byte order, as SQLite sorts, whatever the database's locale, and faster to compare.
 */
import type pg from 'pg';
import { StoreOpenError } from '../store.ts';
import { redactLocation, type Queryable } from './db.ts';
import { SEQUENCER_FUNCTION } from './sequencer.ts';

/** A search's filter as the rollups key it ('' for none). */
const FILTER = (filters: string, name: string) => `coalesce(${filters}->>'${name}', '')`;
const KEY = (s: string) =>
  `${s}.at / 86400000, ${s}.understood, ${FILTER(`${s}.filters`, 'site')}, ${FILTER(`${s}.filters`, 'lang')}, ${FILTER(`${s}.filters`, 'type')}`;

/**
 * The search console's rollups (store/analytics-reports.ts), as SQLite keeps them (sqlite/db.ts
 * ROLLUPS): a row a day, query and filters; a row a day and refinement (A, then B). A search's
 * first click (the lowest n) counts it clicked; A's click counts for "A, then B" whichever is written
 * first — the log writes a batch's searches and its clicks in two statements, so that a search's
 * trigger never sees the clicks written after it.
 */
const SEARCH_ROLLUPS = `
ALTER TABLE searches ADD COLUMN refines text;
CREATE INDEX searches_understood ON searches (understood, at);
CREATE INDEX searches_refines ON searches (refines) WHERE refines IS NOT NULL;
CREATE TABLE search_days (
  day integer NOT NULL, query text NOT NULL, site text NOT NULL, lang text NOT NULL, type text NOT NULL,
  searches integer NOT NULL DEFAULT 0, clicked integer NOT NULL DEFAULT 0, first_clicks bigint NOT NULL DEFAULT 0, no_results integer NOT NULL DEFAULT 0,
  PRIMARY KEY (day, query, site, lang, type)
);
CREATE TABLE search_refinements (
  day integer NOT NULL, from_query text NOT NULL, to_query text NOT NULL,
  searches integer NOT NULL DEFAULT 0, from_clicked integer NOT NULL DEFAULT 0, to_clicked integer NOT NULL DEFAULT 0,
  PRIMARY KEY (day, from_query, to_query)
);
CREATE FUNCTION trawl_search_rolled_up() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_days (day, query, site, lang, type, searches, no_results)
    VALUES (${KEY('NEW')}, 1, (NEW.total = 0)::int)
    ON CONFLICT (day, query, site, lang, type)
    DO UPDATE SET searches = search_days.searches + 1, no_results = search_days.no_results + excluded.no_results;
  IF NEW.refines IS NOT NULL THEN
    INSERT INTO search_refinements (day, from_query, to_query, searches, from_clicked)
      SELECT NEW.at / 86400000, a.understood, NEW.understood, 1, EXISTS (SELECT 1 FROM search_clicks WHERE search_id = a.id)::int
      FROM searches a WHERE a.id = NEW.refines AND a.understood <> NEW.understood
      ON CONFLICT (day, from_query, to_query)
      DO UPDATE SET searches = search_refinements.searches + 1, from_clicked = search_refinements.from_clicked + excluded.from_clicked;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER searches_rolled_up AFTER INSERT ON searches FOR EACH ROW EXECUTE FUNCTION trawl_search_rolled_up();
CREATE FUNCTION trawl_click_rolled_up() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM search_clicks WHERE search_id = NEW.search_id AND n < NEW.n) THEN RETURN NULL; END IF;
  UPDATE search_days d SET clicked = d.clicked + 1, first_clicks = d.first_clicks + NEW.position
    FROM searches s WHERE s.id = NEW.search_id AND (d.day, d.query, d.site, d.lang, d.type) = (${KEY('s')});
  UPDATE search_refinements r SET to_clicked = r.to_clicked + 1
    FROM searches b JOIN searches a ON a.id = b.refines
    WHERE b.id = NEW.search_id AND (r.day, r.from_query, r.to_query) = (b.at / 86400000, a.understood, b.understood);
  UPDATE search_refinements r SET from_clicked = r.from_clicked + 1
    FROM searches a JOIN searches b ON b.refines = a.id
    WHERE a.id = NEW.search_id AND (r.day, r.from_query, r.to_query) = (b.at / 86400000, a.understood, b.understood);
  RETURN NULL;
END $$;
CREATE TRIGGER clicks_rolled_up AFTER INSERT ON search_clicks FOR EACH ROW EXECUTE FUNCTION trawl_click_rolled_up();
INSERT INTO search_days (day, query, site, lang, type, searches, no_results)
  SELECT ${KEY('s')}, count(*), count(*) FILTER (WHERE s.total = 0) FROM searches s GROUP BY 1, 2, 3, 4, 5;
UPDATE search_days d SET clicked = f.clicked, first_clicks = f.positions FROM (
  SELECT ${KEY('s')}, count(*) AS clicked, sum(c.position) AS positions
  FROM searches s JOIN search_clicks c ON c.search_id = s.id
  WHERE c.n = (SELECT min(n) FROM search_clicks WHERE search_id = s.id) GROUP BY 1, 2, 3, 4, 5) f (day, query, site, lang, type, clicked, positions)
WHERE (d.day, d.query, d.site, d.lang, d.type) = (f.day, f.query, f.site, f.lang, f.type);
`;

type Migration = { readonly version: number; readonly name: string; readonly sql: string };

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name:
      'the crawl: URL records, documents and their token sequences, duplicates, ' +
      'the change log, seeds, robots.txt, rejections, archive records, anchor text',
    sql: `
CREATE TABLE urls (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  url             text COLLATE "C" NOT NULL UNIQUE,   -- normalized form: the URL's identity
  fetch_url       text,                                -- what is fetched, when it differs from url
  host            text COLLATE "C" NOT NULL,           -- host[:port], the politeness key
  depth           integer NOT NULL,
  state           text COLLATE "C" NOT NULL,           -- UrlState (model/urls.ts)
  reason          text COLLATE "C",                    -- why excluded/failed/dead, or a redirect's target
  error           text,                                -- a stable error code (model/errors.ts)
  http_status     integer,
  hops            integer NOT NULL DEFAULT 0,
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at bigint,                              -- when a failed URL is tried again
  discovered_at   bigint NOT NULL,
  fetched_at      bigint,
  changed_at      bigint,                              -- last time its content hash changed
  content_type    text,
  charset         text,
  lang            text,
  size            bigint,
  hash            text,
  etag            text,
  last_modified   text,
  lastmod         text,                                -- a sitemap's <lastmod>, as written there
  revisit_at      bigint,                              -- when the page is due again; NULL: not scheduled
  revisit_ms      bigint,
  links_hash      text,
  tunnel          integer NOT NULL DEFAULT 0,
  topic_score     double precision,
  relevant        boolean,
  links_cut       integer,
  rendered        text
);
CREATE INDEX urls_queue ON urls (host, depth, id) WHERE state = 'queued';
CREATE INDEX urls_retry ON urls (host, next_attempt_at) WHERE state = 'failed';
CREATE INDEX urls_retry_at ON urls (next_attempt_at) WHERE state = 'failed';
CREATE INDEX urls_state ON urls (state);
CREATE INDEX urls_revisit ON urls (host, revisit_at) WHERE revisit_at IS NOT NULL;
CREATE INDEX urls_revisit_at ON urls (revisit_at) WHERE revisit_at IS NOT NULL;
CREATE INDEX urls_links_cut ON urls (links_cut) WHERE links_cut IS NOT NULL;
CREATE INDEX urls_relevant ON urls (relevant) WHERE relevant IS NOT NULL;

CREATE TABLE documents (
  id           bigint PRIMARY KEY,                     -- = urls.id
  url          text NOT NULL,
  title        text NOT NULL,
  description  text NOT NULL,
  headings     text NOT NULL,                          -- one heading a line
  text         text NOT NULL,
  content_type text NOT NULL,
  bytes        bigint NOT NULL,
  truncated    boolean NOT NULL,
  http_status  integer NOT NULL,
  fetched_at   bigint NOT NULL,
  hash         text COLLATE "C" NOT NULL,
  lang         text,
  topic        jsonb,
  facts        jsonb,
  simhash      text
);
CREATE INDEX documents_hash ON documents (hash);

CREATE TABLE sequences (id bigint PRIMARY KEY, stemming text NOT NULL, tokens bytea NOT NULL);

CREATE TABLE duplicates (url_id bigint PRIMARY KEY, doc_id bigint NOT NULL);
CREATE INDEX duplicates_doc ON duplicates (doc_id);

-- The change log. A sequence number is taken from the one row of change_head, whose lock is held
-- until the transaction commits: numbers are given in commit order, so a reader that has seen
-- number n has seen every change before it (a SEQUENCE gives numbers in the order they are asked
-- for, and a transaction that asked first may commit last). The row also keeps the last number
-- when every change is pruned.
CREATE TABLE changes (seq bigint PRIMARY KEY, doc_id bigint NOT NULL, op text NOT NULL);
CREATE TABLE change_head (one boolean PRIMARY KEY DEFAULT true CHECK (one), seq bigint NOT NULL);
INSERT INTO change_head (seq) VALUES (0);

CREATE TABLE seeds (url text COLLATE "C" PRIMARY KEY, added_at bigint NOT NULL);

CREATE TABLE robots (host text COLLATE "C" PRIMARY KEY, fetched_at bigint NOT NULL, status integer NOT NULL, body text NOT NULL);

-- Rejection counts, spread over rows by connection (shard): every page's links count
-- 'already-seen', and one row for all would make every worker's commits wait for each other.
CREATE TABLE rejections (reason text COLLATE "C" NOT NULL, shard smallint NOT NULL, n bigint NOT NULL, PRIMARY KEY (reason, shard));

CREATE TABLE archive (
  url_id      bigint PRIMARY KEY,
  file        text NOT NULL,
  byte_offset bigint NOT NULL,
  byte_length bigint NOT NULL,
  record_id   text NOT NULL,
  date        text NOT NULL,
  digest      text
);

CREATE TABLE anchors (target text COLLATE "C" NOT NULL, text text COLLATE "C" NOT NULL, links bigint NOT NULL, PRIMARY KEY (target, text));
`,
  },
  {
    version: 2,
    name: 'hosts and their leases: which worker fetches from which host (leases.ts)',
    sql: `
-- One row per host ever queued (the enqueue adds them), locked by claims (FOR UPDATE SKIP LOCKED).
CREATE TABLE hosts (
  host        text COLLATE "C" PRIMARY KEY,
  worker      text,                            -- the lease's holder; NULL: free
  lease_until bigint,                          -- when the lease runs out (ms)
  claimed_at  bigint                           -- when it was last claimed: the least recent first
);
INSERT INTO hosts (host) SELECT DISTINCT host FROM urls;
CREATE INDEX hosts_claim_order ON hosts (claimed_at NULLS FIRST, host);
CREATE INDEX hosts_leased ON hosts (lease_until) WHERE worker IS NOT NULL;
`,
  },
  {
    version: 3,
    name: 'readers of the change log: pruning keeps what a search node still needs (changes.ts)',
    sql: `
-- The log's name (a snapshot replays only from the log it was flushed from) and how far it is
-- pruned, in a row of its own: a prune locks it, not the head that every commit takes.
CREATE TABLE change_log (one boolean PRIMARY KEY DEFAULT true CHECK (one), id text NOT NULL, pruned bigint NOT NULL);
INSERT INTO change_log (id, pruned) SELECT gen_random_uuid()::text, coalesce((SELECT min(seq) - 1 FROM changes), (SELECT seq FROM change_head));
-- Each index that follows the log: it needs the changes after seq; seen_at, when it last said so (ms).
CREATE TABLE change_readers (reader text COLLATE "C" PRIMARY KEY, seq bigint NOT NULL, seen_at bigint NOT NULL);
`,
  },
  {
    version: 4,
    name: 'workers and their heartbeats; URLs per host counted on the host (limits.maxPagesPerHost across workers)',
    sql: `
ALTER TABLE hosts ADD COLUMN urls bigint NOT NULL DEFAULT 0;
UPDATE hosts h SET urls = c.n FROM (SELECT host, count(*) AS n FROM urls GROUP BY host) c WHERE c.host = h.host;
-- Each crawler process as of its last heartbeat (every lease renewal): trawl workers lists them.
CREATE TABLE workers (
  id               text COLLATE "C" PRIMARY KEY,
  machine          text NOT NULL,
  pid              integer NOT NULL,
  started_at       bigint NOT NULL,
  seen_at          bigint NOT NULL,
  hosts            integer NOT NULL,
  pages            bigint NOT NULL,
  pages_per_second double precision NOT NULL,
  stopped_at       bigint
);
CREATE INDEX workers_seen ON workers (seen_at);
`,
  },
  {
    version: 5,
    name: 'the content-seen lookup by (hash, id): its ORDER BY id LIMIT 1 no longer walks every document',
    // With an index on hash alone, the planner answered "WHERE hash = $1 ORDER BY id LIMIT 1" by
    // walking the primary key in order, filtering on hash: a page whose content was never seen
    // read every document (bench/scale, EXPLAIN during a crawl of rust-doc).
    sql: `
CREATE INDEX documents_hash_id ON documents (hash, id);
DROP INDEX documents_hash;
`,
  },
  {
    version: 6,
    name: 'the page each URL was first found on, for the broken links the status shows',
    // (URLs seen before have none: the status then names no page for them.)
    sql: `ALTER TABLE urls ADD COLUMN found_on bigint;`,
  },
  {
    version: 7,
    name: "the fragment ids of a page's headings, so that a result links the section a query found",
    // (Pages stored before have none until they are fetched again.)
    sql: `ALTER TABLE documents ADD COLUMN heading_ids jsonb;`,
  },
  {
    version: 8,
    name: 'the search log: searches and the clicks on their results',
    sql: `
CREATE TABLE searches (
  id         text PRIMARY KEY,
  at         bigint NOT NULL,
  session    text,
  source     text NOT NULL,
  query      text NOT NULL,
  understood text NOT NULL,
  filters    jsonb NOT NULL,
  page       integer NOT NULL,
  total      integer NOT NULL,
  shown      jsonb NOT NULL,
  took_ms    double precision NOT NULL,
  prefixes   jsonb NOT NULL
);
CREATE INDEX searches_at ON searches (at);
CREATE TABLE search_clicks (
  n         bigserial PRIMARY KEY,
  search_id text NOT NULL,
  at        bigint NOT NULL,
  position  integer NOT NULL,
  url       text NOT NULL
);
CREATE INDEX search_clicks_search ON search_clicks (search_id);
`,
  },
  {
    version: 9,
    name: "the search console's rollups, a day a row, kept by triggers; a search's refines",
    sql: SEARCH_ROLLUPS,
  },
  {
    version: 10,
    name: "the search's levers, synonyms and rules, with their history",
    // (As SQLite's, sqlite/db.ts CURATION; values JSON as text: postgres/curation.ts says why.)
    sql: `
CREATE TABLE curation (
  what  text PRIMARY KEY,
  value text NOT NULL,
  at    bigint NOT NULL
);
CREATE TABLE curation_history (
  n     bigserial PRIMARY KEY,
  at    bigint NOT NULL,
  what  text NOT NULL,
  by    text NOT NULL,
  value text NOT NULL
);
CREATE INDEX curation_history_what ON curation_history (what, n);
`,
  },
  {
    version: 11,
    name: 'changes numbered after their commit: no row every writer waits on (changes.ts)',
    // (Numbers so far stay as they are; changes.xid: which transaction logged a change, for its writer.)
    sql: `
CREATE TABLE change_pending (id bigserial PRIMARY KEY, doc_id bigint NOT NULL, op text NOT NULL, xid xid8 NOT NULL DEFAULT pg_current_xact_id());
ALTER TABLE changes ADD COLUMN xid xid8;
${SEQUENCER_FUNCTION};
`,
  },
];

/** The schema version this Trawl writes. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Any 64-bit number that is Trawl's own: the advisory lock that one migration at a time holds. */
const MIGRATION_LOCK = 0x7472_6177_6c00;

const CREATE_LOG =
  'CREATE TABLE IF NOT EXISTS trawl_migrations ' + '(version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())';

export type MigrationReport = { readonly from: number; readonly to: number; readonly applied: readonly string[] };

/** The schema version of the database (0: no Trawl schema yet). */
export async function schemaVersion(q: Queryable): Promise<number> {
  const exists = (await q.query<{ t: string | null }>(`SELECT to_regclass('trawl_migrations') AS t`)).rows[0]!.t !== null;
  if (!exists) return 0;
  return (await q.query<{ v: number | null }>('SELECT max(version) AS v FROM trawl_migrations')).rows[0]!.v ?? 0;
}

/** Brings the database's schema up to SCHEMA_VERSION; refuses one written by a newer Trawl. */
export async function migrate(pool: pg.Pool, location: string): Promise<MigrationReport> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(CREATE_LOG);
      const from = await schemaVersion(client);
      if (from > SCHEMA_VERSION) throw newerTrawl(location, from);
      const applied: string[] = [];
      for (const m of MIGRATIONS.filter((x) => x.version > from)) {
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO trawl_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK');
          throw new StoreOpenError(`migrating ${redactLocation(location)} to schema ${m.version} failed: ${(e as Error).message}`);
        }
        applied.push(`${m.version}: ${m.name}`);
      }
      return { from, to: SCHEMA_VERSION, applied };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

/**
 * What a reader (a search node, an export) checks instead of migrating: a Trawl schema it can read
 * as it is. It writes nothing.
 */
export async function checkReadable(q: Queryable, location: string): Promise<void> {
  const version = await schemaVersion(q);
  const where = redactLocation(location);
  if (version === 0)
    throw new StoreOpenError(
      `no crawl in ${where}: the database holds no Trawl schema (crawl first: trawl crawl URL --store ${where}, or trawl db migrate --store ${where})`,
    );
  if (version > SCHEMA_VERSION) throw newerTrawl(location, version);
  if (version < SCHEMA_VERSION)
    throw new StoreOpenError(
      `${where} was written by an older Trawl (schema ${version}; this one reads ${SCHEMA_VERSION}): run trawl db migrate --store ${where} once to upgrade it`,
    );
}

const newerTrawl = (location: string, version: number) =>
  new StoreOpenError(
    `${redactLocation(location)} was written by a newer Trawl (schema ${version}; this one knows ${SCHEMA_VERSION}). Upgrade Trawl or use another database.`,
  );
