/**
 * GNU wget as an independent archive writer for the tests: it crawls a loopback site into a gzipped
 * WARC (1.0) of its own making. Asynchronously: the test web answers from the test's own process.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Crawls `url` `level` links deep into DIR/NAME.warc.gz (the files themselves in DIR/files); returns the WARC's path. */
export async function wgetWarc(dir: string, url: string, o: { name?: string; level?: number } = {}): Promise<string> {
  const name = o.name ?? 'site';
  const args = ['--quiet', '--recursive', `--level=${o.level ?? 2}`, '--no-parent', '-e', 'robots=off'];
  await promisify(execFile)('wget', [...args, `--warc-file=${join(dir, name)}`, `--directory-prefix=${join(dir, 'files')}`, url], { timeout: 60_000 });
  return join(dir, `${name}.warc.gz`);
}
