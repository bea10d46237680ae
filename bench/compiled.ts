/**
 * A benchmark's one-run script compiled as the product is (scripts/build.ts: bundled JavaScript, the
 * workers' files beside it), so that a run measures what the `trawl` command runs — not tsx, which
 * costs ~0.5 s and ~50 MB of RSS at every start. Built into .build/bench/<name>/ (~0.3 s).
 *
 * `TRAWL_BENCH_TSX=1` runs the TypeScript through tsx instead (to compare).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTrawl } from '../scripts/build.ts';

/** The node arguments that run `script` (a bench/*.ts file): its compiled file, or tsx and the TypeScript. */
export async function compiledArgs(script: URL): Promise<string[]> {
  const path = fileURLToPath(script);
  if (process.env.TRAWL_BENCH_TSX === '1') return ['--import', 'tsx', path];
  const name = basename(path).replace(/\.ts$/, '');
  const outdir = `.build/bench/${name}`;
  await buildTrawl({ [name]: `bench/${basename(path)}` }, outdir);
  return [fileURLToPath(new URL(`../${outdir}/${name}.js`, import.meta.url))];
}

/**
 * The environment the `trawl` command runs in: what the first line of bin/trawl.js sets
 * (`#!/usr/bin/env -S NAME=VALUE … node`) over this process's — for a one-run script to be measured
 * as the command would be.
 */
export function productEnv(): NodeJS.ProcessEnv {
  const shebang = readFileSync(new URL('../bin/trawl.js', import.meta.url), 'utf8').split('\n', 1)[0]!;
  const sets = Object.fromEntries([...shebang.matchAll(/\s([A-Z_][A-Z0-9_]*)=(\S*)/g)].map((m) => [m[1]!, m[2]!]));
  return { ...process.env, ...sets };
}

/**
 * The figures a one-run script prints as the last line of its stdout (JSON), once its process has
 * exited; `what` names the run in the error thrown when it failed or printed none (with its exit
 * code and the end of its output). `child` must have been spawned with its stdout piped.
 */
export async function figuresOf<T>(child: ChildProcess, what: string): Promise<T> {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const line = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`${what} failed (exit code ${code}): ${out.slice(-500)}`);
  return JSON.parse(line) as T;
}
