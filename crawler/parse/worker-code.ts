/**
 * Where a worker pool's threads get their code (pool.ts), and the flags they start with: a thread
 * needs the extractor as JavaScript, without the main thread's TypeScript loader.
 */
import { existsSync } from 'node:fs';
import type { Log } from '../../lib/log.ts';
import { bundleWorker, prebuiltWorkerName } from './bundle.ts';

/** Set by the build (scripts/build.ts) in the compiled CLI; undeclared when the TypeScript runs through tsx. */
declare const TRAWL_BUILD: string | undefined;

/**
 * The workers' code: in the compiled CLI, the file the build made for this extractor (beside the
 * CLI, in workers/); otherwise bundled now, as a data: URL; if bundling fails, the entry that
 * loads it through tsx.
 */
export async function workerCode(module: URL, entry: URL | undefined, log: Log): Promise<URL> {
  if (entry) return entry;
  if (typeof TRAWL_BUILD === 'string') {
    const built = new URL(`./workers/${prebuiltWorkerName(module)}`, import.meta.url);
    if (existsSync(built)) return built;
  }
  try {
    const source = await bundleWorker(module);
    return new URL(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);
  } catch (e) {
    // esbuild's BuildFailure lists its errors; its message's first line names none.
    const first = (e as { errors?: { text: string }[] }).errors?.[0]?.text ?? (e as Error).message.split('\n')[0];
    log.warn(`parse workers: could not bundle their code (${first}); loading it through tsx instead, which starts slower`);
    return new URL('./worker-entry.mjs', import.meta.url);
  }
}

/** Node flags without the module loaders (`--import X`, `--loader X`, `--experimental-loader X`, `--require X`/`-r X`). */
export function withoutLoaders(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (/^(--(import|loader|experimental-loader|require)|-r)$/.test(a)) i++;
    else if (!/^--(import|loader|experimental-loader|require)=/.test(a)) out.push(a);
  }
  return out;
}
