/**
 * The layering, as a rule the build checks (`make layering`, part of `make test`). ARCHITECTURE.md
 * draws the same picture:
 *
 *   model/ ← the stages (crawler/, indexer/, search-ui/) → the store's interfaces (store/*.ts)
 *                                                          ← their adapters (store/sqlite/, store/postgres/)
 *   config/ at the edge; appliance/ the one wiring place; cli/ on top; lib/ small pure helpers.
 *
 * Tests (and their fixtures, `*-fixture.ts`) may wire real components across the layers (a crawler
 * test opens a SQLite store); the rules below are about the product's code.
 */
const TESTS = '(\\.test|-fixture)\\.ts$';
const stage = (name) => `^${name}/`;

/** A rule: files under `from` may import nothing under `to`. */
const forbid = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: TESTS },
  to: { path: to },
});

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'Dependencies point one way: no module reaches itself through its imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    forbid(
      'model-is-the-bottom',
      'model/ holds the domain types every stage shares: it imports nothing of Trawl outside model/.',
      stage('model'),
      '^(lib|store|crawler|indexer|search-ui|appliance|cli|config|testweb|bench)/',
    ),
    forbid(
      'lib-is-pure',
      'lib/ holds small helpers without domain knowledge: they import nothing of Trawl.',
      stage('lib'),
      '^(model|store|crawler|indexer|search-ui|appliance|cli|config|testweb|bench)/',
    ),
    forbid(
      'store-interfaces-know-no-adapter',
      'store/*.ts are the interfaces: they know the model only, never an implementation.',
      '^store/[^/]+\\.ts$',
      '^(store/(sqlite|postgres|contract)|crawler|indexer|search-ui|appliance|cli|config|lib)/',
    ),
    forbid(
      'adapters-implement-interfaces',
      'An adapter (store/sqlite/) implements the store interfaces over the model; it knows no stage, nor another adapter.',
      '^store/sqlite/',
      '^(store/postgres|crawler|indexer|search-ui|appliance|cli|config|testweb)/',
    ),
    forbid(
      'postgres-adapter-implements-interfaces',
      "The PostgreSQL adapter (store/postgres/), like SQLite's: the store interfaces over the model, no stage, no other adapter.",
      '^store/postgres/',
      '^(store/sqlite|crawler|indexer|search-ui|appliance|cli|config|testweb)/',
    ),
    forbid(
      'crawler-uses-store-interfaces-only',
      'The crawler depends on the store interfaces, never on an adapter, and knows nothing of the index, the server or the wiring.',
      stage('crawler'),
      '^(store/(sqlite|postgres|contract)|indexer|search-ui|appliance|cli|config|testweb)/',
    ),
    forbid(
      'indexer-uses-store-interfaces-only',
      'The indexer depends on the model and the store interfaces, never on an adapter or another stage.',
      stage('indexer'),
      '^(store/(sqlite|postgres|contract)|crawler|search-ui|appliance|cli|config|testweb)/',
    ),
    forbid(
      'indexer-ingest-is-lowest',
      'indexer/ingest (tokenizing, analysis) is read by the structures and the queries, and reads neither.',
      stage('indexer/ingest'),
      '^indexer/(structures|query|persistence)/|^indexer/[^/]+\\.ts$',
    ),
    forbid(
      'indexer-structures-below-query',
      'indexer/structures are what queries read: they know nothing of queries or snapshots.',
      stage('indexer/structures'),
      '^indexer/(query|persistence)/|^indexer/[^/]+\\.ts$',
    ),
    forbid(
      'indexer-query-below-front',
      'indexer/query runs over the structures; the front (search-index.ts) and the snapshots are above it.',
      stage('indexer/query'),
      '^indexer/persistence/|^indexer/[^/]+\\.ts$',
    ),
    forbid(
      'server-sees-a-searcher',
      'search-ui sees a read-only searcher, a status and the admin actions through the model — never the crawler, the store or the wiring.',
      stage('search-ui'),
      '^(store|crawler|appliance|cli|testweb)/',
    ),
    forbid(
      'config-at-the-edge',
      'config/ validates settings; it may use the URL rules it validates (crawler/urls) and nothing else of the stages.',
      stage('config'),
      '^(store|indexer|search-ui|appliance|cli|testweb)/|^crawler/(?!urls/)',
    ),
    forbid('one-wiring-place', 'appliance/ wires the stages; only the command line sits above it.', stage('appliance'), '^(cli|search-ui|testweb)/'),
    forbid(
      'test-webs-stand-alone',
      'The test webs (testweb/) serve pages; they know nothing of Trawl but the CLI they start.',
      stage('testweb'),
      '^(model|lib|store|crawler|indexer|search-ui|appliance|config)/',
    ),
    forbid(
      'product-never-imports-bench',
      'Benchmarks measure the product; nothing of it imports them.',
      '^(model|lib|store|crawler|indexer|search-ui|appliance|cli|config|testweb)/',
      '^bench/',
    ),
    forbid(
      'product-never-imports-the-build',
      'scripts/build.ts compiles the product; the product never imports it (benchmarks may, to run their scripts compiled).',
      '^(model|lib|store|crawler|indexer|search-ui|appliance|cli|config|testweb)/',
      '^scripts/',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test-results|playwright-report|dist|\\.build)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js'] },
  },
};
