/**
 * `trawl`: the command line. Parses arguments, runs a command, maps errors to exit codes.
 *
 * A command's code is imported when it runs, not here: `trawl --help`, `--version` and a usage
 * error load commander alone (the compiled CLI answers in a few tens of milliseconds).
 */
import { Command, CommanderError, Option } from 'commander';
import { PRODUCT_VERSION } from '../config/version.ts';
import type { CommonFlags } from './shared.ts';

type Action = (...args: never[]) => unknown;
/** `name` of the module `load` imports, as a command's action. */
function lazy<M, K extends keyof M>(load: () => Promise<M>, name: K): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    await ((await load())[name] as Action)(...(args as never[]));
  };
}
const commands = () => import('./commands.ts');
const reading = () => import('./reading.ts');
const cluster = () => import('./cluster.ts');
const archive = () => import('./archive.ts');
const start = lazy(commands, 'start');
const crawl = lazy(commands, 'crawl');
const recrawl = lazy(commands, 'recrawl');
const serveOnly = lazy(commands, 'serveOnly');
const search = lazy(reading, 'search');
const migrate = lazy(commands, 'migrate');
const exportDocuments = lazy(reading, 'exportDocuments');
const worker = lazy(cluster, 'worker');
const workers = lazy(cluster, 'workers');
const exportArchive = lazy(archive, 'exportArchive');
const importFiles = lazy(archive, 'importFiles');
const classify = lazy(() => import('./classify.ts'), 'classify');
const say = (message: string) => process.stderr.write(`[trawl] ${message}\n`);

const program = new Command('trawl')
  .description('A crawler and search engine in one: point it at a site, get a search engine.')
  .version(PRODUCT_VERSION)
  .exitOverride()
  .showHelpAfterError('(run trawl --help for usage)')
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

const configOpt = () => new Option('-c, --config <file>', 'settings file (JSON or YAML); see config/README.md');
const dataOpt = () => new Option('-d, --data <dir>', 'data directory (default: dataDir from the config, else ./trawl-data)');
const storeOpt = () =>
  new Option('--store <url>', 'keep the crawl in PostgreSQL, postgres://user@host/db, shared by many Trawl processes (default: SQLite in the data directory)');
const portOpt = () => new Option('-p, --port <n>', 'port of the search server (0: any free port)');
const archiveOpt = () => new Option('--archive', 'keep every fetched response in WARC files in the data directory (archive.warc)');
const renderOpt = () =>
  new Option('--render <mode>', 'render pages that need JavaScript in a headless browser: auto, never or always (render.mode)').choices([
    'auto',
    'never',
    'always',
  ]);

program
  .command('start')
  .description('crawl, index and serve at once; Ctrl-C stops gracefully')
  .argument('[urls...]', 'seed URLs (replace the seeds of the config)')
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .addOption(portOpt())
  .addOption(renderOpt())
  .addOption(archiveOpt())
  .option('--warc <files...>', 'import these WARC (or ARC) files first, and serve them (with no seed, nothing is crawled)')
  .action(async (urls: string[], flags) => {
    await start(urls, flags);
  });

program
  .command('crawl')
  .description('crawl until nothing in scope is left (or a limit), then exit; run again to resume')
  .argument('[urls...]', 'seed URLs (replace the seeds of the config)')
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .addOption(renderOpt())
  .addOption(archiveOpt())
  .action(crawl);

program
  .command('worker')
  .description('one of many crawlers on a shared PostgreSQL store: crawls by host lease, indexes nothing (search nodes follow the store), runs until stopped')
  .argument('[urls...]', 'seed URLs to add to the shared crawl')
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .addOption(renderOpt())
  .addOption(archiveOpt())
  .action(worker);

program
  .command('workers')
  .description('list the crawlers of a shared store: state, hosts held, pages/s, last heartbeat, stale leases')
  .addOption(configOpt())
  .addOption(storeOpt())
  .option('--json', 'print them as JSON')
  .action(workers);

program
  .command('recrawl')
  .description('fetch pages again (conditionally), apply their changes to the index, print a summary, exit')
  .argument('[urls...]', 'URLs to recrawl')
  .option('--all', 'every URL Trawl knows (but those an admin removed)')
  .option('--due', 'the pages whose revisit is due (see recrawl.minInterval)')
  .option('--host <host...>', "a host's URLs (repeatable)")
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .addOption(renderOpt())
  .action(recrawl);

program
  .command('serve')
  .description(
    'search over an existing data directory (or a --store database); ' +
      'one shard of a sharded index (--shard), or the coordinator that merges the shards (--shards)',
  )
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .addOption(portOpt())
  .option(
    '--shard <K/N>',
    "index only shard K of N of the documents (by a hash of their URL: K from 1 to N), for an index larger than one node's RAM; needs --store (cluster.shard)",
  )
  .option(
    '--shards <urls>',
    'be the coordinator of a sharded index: answer by asking these search nodes (comma-separated, one per shard) and merging, ' +
      "with the whole corpus's statistics; no index here (cluster.shards)",
  )
  .addHelpText(
    'after',
    '\nA sharded index (README: Scaling out):\n' +
      '  trawl serve --store postgres://… --data /srv/shard1 --port 8081 --shard 1/2\n' +
      '  trawl serve --store postgres://… --data /srv/shard2 --port 8082 --shard 2/2\n' +
      '  trawl serve --shards http://127.0.0.1:8081/,http://127.0.0.1:8082/ --port 8080\n' +
      'Give every node the same server.adminToken (TRAWL_ADMIN_TOKEN): the coordinator sends it, and a shard then counts no rate limit against it.',
  )
  .action(serveOnly);

program
  .command('search')
  .description('search from the shell')
  .argument('<query...>', 'the query: words, "an exact phrase", a OR b, -excluded, site:host')
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .option('--json', 'print the result as JSON')
  .option('--page <n>', 'result page', '1')
  .option('--size <n>', 'results per page', '10')
  .option('--explain', "take each result's score apart: words matched and missing, each field's part, bonuses and factors")
  .action(search);

program
  .command('classify')
  .description('judge one page against a topic as a focused crawl would: score, decision, classes, matched terms')
  .argument('<url-or-file>', 'a URL to fetch, or a saved page (HTML; .txt as plain text)')
  .option('--topic <file>', 'a topic file (default: focus.topicFile of the config)')
  .option('--scorer <scorer>', 'plain or position (default: focus.scorer)')
  .option('--cutoff <n>', 'the score a relevant page reaches (default: focus.cutoff)')
  .option('--json', 'print {score, relevant, classes, matches} as JSON')
  .addOption(configOpt())
  .action(classify);

program
  .command('export')
  .description('write every indexed document to stdout: one JSON object a line (JSONL), gzipped WARC, or a WACZ')
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .option(
    '--format <format>',
    'output format: jsonl; warc (the archived responses, else the extracted text); or wacz (that WARC packaged for ReplayWeb.page, the archived pages listed)',
    'jsonl',
  )
  .option('--since <date>', 'only pages fetched since this date (warc, wacz)')
  .option('--output <file>', 'write to this file, not stdout (warc, wacz)')
  .action(async (flags: CommonFlags & { format?: string; since?: string; output?: string }) =>
    flags.format === 'warc' || flags.format === 'wacz' ? exportArchive(flags) : exportDocuments(flags),
  );

program
  .command('import')
  .description(
    'make web archives searchable: each page of the WARC, ARC or WACZ files indexed as if crawled, with its URL and capture date; ' +
      'exit 1 when a file could not be read to its end',
  )
  .argument('<files...>', 'WARC or ARC files (gzipped or not), or WACZ packages')
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .action(importFiles);

const analytics = program.command('analytics').description('the search log: what people searched for, and chose');
analytics
  .command('export')
  .description('write every logged search with its clicks to stdout: one JSON object a line (JSONL), or CSV')
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .option('--since <date>', 'only searches made since this date (2026-12-01, or a time)')
  .option('--format <format>', 'jsonl or csv', 'jsonl')
  .action(async (flags: CommonFlags & { since?: string; format?: string }) => (await import('./analytics.ts')).exportSearches(flags));
analytics
  .command('purge')
  .description('delete the searches made before a date, with their clicks')
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .option('--before <date>', 'the searches made before this date (2026-12-01, or a time) are deleted')
  .action(async (flags: CommonFlags & { before?: string }) => (await import('./analytics.ts')).purgeSearches(flags));

const db = program.command('db').description('the crawl database');
db.command('migrate')
  .description('create the store, or bring its schema up to this Trawl (every writer does it at start too)')
  .addOption(configOpt())
  .addOption(dataOpt())
  .addOption(storeOpt())
  .action(migrate);

program
  .command('demo')
  .description('start a sample web on loopback, crawl it and serve search over it (what `make demo` runs)')
  .addOption(dataOpt())
  .addOption(portOpt())
  .action(async (flags: { data?: string; port?: string }) => {
    const { runDemo } = await import('./demo.ts');
    await runDemo(flags);
  });

// A bug must not end the process silently or half-way: say what happened and exit non-zero.
// (SQLite needs no cleanup: every write is a transaction, and the next start replays the change log.)
process.on('unhandledRejection', (e) => {
  say(`internal error: ${(e as Error)?.stack ?? String(e)}`);
  process.exit(1);
});

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // --help and --version end here too, with exit code 0.
    process.exit(e.exitCode === 0 ? 0 : 2);
  }
  say(`error: ${(e as Error).message}`);
  process.exit((await import('./shared.ts')).exitCodeOf(e));
}
