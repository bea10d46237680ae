// The compiled CLI (scripts/build.ts) as it is shipped: dist/ alone beside node_modules, no
// TypeScript and no tsx — it answers, crawls with the workers' files the build made, and searches;
// and bin/trawl.js runs it only while it is at least as new as its sources.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeWeb, type FakeWeb } from '../testweb/index.ts';
import { buildTrawl, WORKER_MODULES } from './build.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const exec = promisify(execFile);
type Ran = { code: number; stdout: string; stderr: string };
async function node(args: string[], cwd: string): Promise<Ran> {
  try {
    const { stdout, stderr } = await exec(process.execPath, args, { cwd, env: { ...process.env, NODE_OPTIONS: '' }, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

describe('the compiled CLI', () => {
  const outdir = `.build/test-${process.pid}`;
  let shipped: string;
  let web: FakeWeb;
  before(async () => {
    await buildTrawl({ trawl: 'cli/main.ts' }, outdir);
    // What a package holds: dist/ and its dependencies — none of the TypeScript it was built from.
    shipped = mkdtempSync(join(tmpdir(), 'trawl-shipped-'));
    cpSync(join(ROOT, outdir), join(shipped, 'dist'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(shipped, 'node_modules'));
    web = await startFakeWeb({ graphSize: 6 });
  });
  after(async () => {
    await web.close();
    rmSync(join(ROOT, outdir), { recursive: true, force: true });
    rmSync(shipped, { recursive: true, force: true });
  });

  it('lists every source file it was made from, and a worker file per extractor module', () => {
    const { inputs } = JSON.parse(readFileSync(join(ROOT, outdir, 'build.json'), 'utf8')) as { inputs: string[] };
    for (const f of ['cli/main.ts', 'crawler/parse/worker.ts', 'appliance/extract-for-index.ts', 'search-ui/static', 'package.json'])
      assert.ok(inputs.includes(f), f);
    assert.equal(WORKER_MODULES.length, 2);
  });

  it('holds no parser in the code a crawl loads before its first request (issue 23): the parsers load when the main thread first parses a page', () => {
    const dir = join(ROOT, outdir);
    // The chunks a file imports statically (`import … from "./x.js"`, `import "./x.js"`; not `import("./x.js")`), and the packages.
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    const chunksOf = (src: string) => [...src.matchAll(/^(?:import\s[^;]*?from\s*|import\s*|export\s[^;]*?from\s*)"\.\/([^"]+)"/gm)].map((m) => m[1]!);
    const packagesOf = (src: string) => [...src.matchAll(/^(?:import\s[^;]*?from\s*|import\s*)"([^".][^"]*)"/gm)].map((m) => m[1]!);
    const commands = readdirSync(dir).find((f) => /^commands-[A-Z0-9]+\.js$/.test(f));
    assert.ok(commands, 'the chunk of the crawl command (cli/commands.ts)');
    const loaded = new Set<string>();
    const queue = [commands];
    while (queue.length) {
      const f = queue.pop()!;
      if (loaded.has(f)) continue;
      loaded.add(f);
      queue.push(...chunksOf(read(f)));
    }
    const packages = new Set([...loaded].flatMap((f) => packagesOf(read(f))));
    for (const p of ['better-sqlite3', 'flexsearch', 'robots-parser'])
      assert.ok(
        [...packages].some((x) => x.startsWith(p)),
        `${p} is loaded (the walk follows the chunks)`,
      );
    for (const parser of ['cheerio', 'htmlparser2', 'marked', 'css-select', 'iconv-lite', 'hono', 'pg'])
      assert.ok(![...packages].some((x) => x === parser || x.startsWith(`${parser}/`)), `${parser} is not loaded before a crawl's first request`);
    // (…and the parsers are in the build, in a chunk loaded when needed.)
    assert.ok(readdirSync(dir).some((f) => f.endsWith('.js') && !loaded.has(f) && packagesOf(read(f)).includes('htmlparser2')));
  });

  it('answers --version and --help without any TypeScript', async () => {
    const version = await node(['dist/trawl.js', '--version'], shipped);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    const help = await node(['dist/trawl.js', '--help'], shipped);
    assert.match(help.stdout, /crawl .*\n/);
  });

  it('crawls with the parse workers the build made, then searches', async () => {
    const data = join(shipped, 'data');
    const config = join(shipped, 'trawl.json');
    writeFileSync(config, JSON.stringify({ seeds: [`${web.url}graph/0`], scope: { allow: ['URL:/graph/'] }, perHost: { delayMs: 0 } }));
    const crawl = await node(['dist/trawl.js', 'crawl', '--config', config, '--data', data], shipped);
    assert.equal(crawl.code, 0, crawl.stderr);
    assert.match(crawl.stderr, /done: nothing in scope is left\. 6 fetched/);
    // (Had the workers' files been missing, the pool would have tried to bundle the sources, failed,
    // and parsed on the main thread, saying so.)
    assert.doesNotMatch(crawl.stderr, /could not bundle|parsing on the main thread|workers could not start/);
    const found = await node(['dist/trawl.js', 'search', 'graphword3', '--data', data, '--json'], shipped);
    assert.equal(found.code, 0, found.stderr);
    assert.deepEqual(
      (JSON.parse(found.stdout) as { hits: { url: string }[] }).hits.map((h) => h.url),
      [`${web.url}graph/3`],
    );
  });

  it('loads a TypeScript classifier module (focus.classifier), though it runs no TypeScript of its own', async () => {
    writeFileSync(
      join(shipped, 'mine.ts'),
      'type Page = { text: string };\n' +
        'export default { classify(page: Page) { const n: number = (page.text.match(/coin/g) ?? []).length; ' +
        "return { score: n * 10, classes: ['coins'] }; } };\n",
    );
    writeFileSync(join(shipped, 'focus.json'), JSON.stringify({ focus: { classifier: './mine.ts', cutoff: 20 } }));
    writeFileSync(join(shipped, 'page.html'), '<title>Coins</title><p>A coin, another coin, a third coin.</p>');
    const r = await node(['dist/trawl.js', 'classify', 'page.html', '--config', 'focus.json', '--json'], shipped);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout) as unknown, { score: 30, relevant: true, classes: [{ name: 'coins', score: 30 }], matches: [] });
  });
});

describe('bin/trawl.js', () => {
  /** A tree shaped like the project's: bin/trawl.js, dist/ with a build.json, one source file, node_modules. */
  const tree = () => {
    const dir = join(ROOT, '.build', `bin-${process.pid}-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(dir, 'bin'), { recursive: true });
    mkdirSync(join(dir, 'dist'));
    mkdirSync(join(dir, 'cli'));
    cpSync(join(ROOT, 'bin', 'trawl.js'), join(dir, 'bin', 'trawl.js'));
    writeFileSync(join(dir, 'dist', 'trawl.js'), 'console.log("compiled");\n');
    writeFileSync(join(dir, 'cli', 'main.ts'), 'const how: string = "tsx";\nconsole.log(how);\n');
    writeFileSync(join(dir, 'dist', 'build.json'), JSON.stringify({ inputs: ['cli/main.ts'] }));
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(dir, 'cli', 'main.ts'), past, past);
    return dir;
  };
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('runs the build while it is as new as its sources, the TypeScript through tsx once a source changed or the build is gone', async () => {
    const dir = tree();
    dirs.push(dir);
    const ran = async () => (await node(['bin/trawl.js'], dir)).stdout.trim();
    assert.equal(await ran(), 'compiled');
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'cli', 'main.ts'), future, future);
    assert.equal(await ran(), 'tsx', 'a source newer than the build');
    rmSync(join(dir, 'dist'), { recursive: true });
    assert.equal(await ran(), 'tsx', 'no build');
  });
});
