/**
 * Crawlee, for the benchmarks that run it beside Trawl (bench/crawl: CheerioCrawler; bench/render:
 * PlaywrightCrawler). It is never a dependency of the project: it is installed on first use into
 * ~/.cache/trawl-bench/crawlee, with playwright at the version of our playwright-core (its browser
 * never downloaded: PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1, Debian's Chromium is used).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The folder Crawlee is installed in (installed now if it is not yet, or not with the playwright wanted). */
export function installCrawlee(): string {
  const dir = join(homedir(), '.cache', 'trawl-bench', 'crawlee');
  const want = (JSON.parse(readFileSync(new URL('../node_modules/playwright-core/package.json', import.meta.url), 'utf8')) as { version: string }).version;
  const version = (pkg: string) => {
    try {
      return (JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return undefined;
    }
  };
  if (version('crawlee') === undefined || version('playwright') !== want) {
    console.log(`installing crawlee@3 and playwright@${want} into ${dir} (once; PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1)`);
    mkdirSync(dir, { recursive: true });
    const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, 'crawlee@3', `playwright@${want}`], {
      stdio: 'inherit',
      env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    });
    if (r.status !== 0) throw new Error(`npm install crawlee into ${dir} failed (${r.status})`);
  }
  const crawlee = JSON.parse(readFileSync(join(dir, 'node_modules', 'crawlee', 'package.json'), 'utf8')) as { version: string; engines?: { node?: string } };
  console.log(
    `crawlee ${crawlee.version} (engines: node ${crawlee.engines?.node ?? '?'}; this is ${process.version}), playwright ${version('playwright')}, from ${dir}`,
  );
  return dir;
}
