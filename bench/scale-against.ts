/**
 * bench/scale --against DIR: this checkout's crawls paired with another checkout's, run alternately
 * in one invocation (each worker count: this, then the other, every round), so that both sides see
 * the machine as it was; the figures are medians of per-pair (per-round) ratios.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fmt, type Run } from './scale-figures.ts';

/** Builds the other checkout's product with its own scripts/build.ts; returns its trawl.js. */
export async function buildAgainst(dir: string): Promise<string> {
  const out = '.build/bench/scale';
  const code = `const m = await import('./scripts/build.ts'); await m.buildTrawl({ trawl: 'cli/main.ts' }, '${out}');`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: dir, stdio: 'inherit' });
  const exit = await new Promise<number | null>((r) => child.on('close', r));
  if (exit !== 0) throw new Error(`building ${dir} failed (${exit})`);
  return resolve(dir, out, 'trawl.js');
}

export const AGAINST = ' (against)';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const label = (n: number) => (n === 1 ? '1 worker' : `${n} workers`);

/** Pages/s of both sides by round, this / against per round, and each side's scaling (n workers / 1) per round. */
export function printAgainst(byLabel: ReadonlyMap<string, Run[]>, workerCounts: readonly number[], against: string): void {
  const pps = (l: string) => (byLabel.get(l) ?? []).map((r) => r.pages / r.seconds);
  const list = (xs: number[], d = 1) => xs.map((x) => fmt(x, d)).join(' / ');
  const rounds = (xs: number[]) => `${list(xs, 2)} (median ${fmt(median(xs), 2)})`;
  console.log(`\nthis checkout against ${against}, run alternately; pages/s round by round:`);
  for (const n of workerCounts) {
    const [a, b] = [pps(label(n)), pps(label(n) + AGAINST)];
    console.log(`  ${label(n)}: this ${list(a)}, against ${list(b)}; this / against ${rounds(a.map((x, i) => x / b[i]!))}`);
  }
  if (!workerCounts.includes(1)) return;
  for (const n of workerCounts.filter((k) => k !== 1)) {
    const scaling = (suffix: string) => {
      const [one, many] = [pps(label(1) + suffix), pps(label(n) + suffix)];
      return rounds(many.map((x, i) => x / one[i]!));
    };
    console.log(`  ${n} workers / 1 worker, round by round: this ${scaling('')}; against ${scaling(AGAINST)}`);
  }
}
