/**
 * Xapian (Debian's python3-xapian, Xapian 1.4) as an anchor of bench/relevance: the pages' fields
 * handed to relevance/xapian-anchor.py, one child process for the whole run, asked one query at a
 * time. Left out when no python3 imports xapian: the bench says so and goes on without it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

export type XapianAnchor = { search(q: string): Promise<number[]>; close(): void };

const SCRIPT = new URL('./xapian-anchor.py', import.meta.url).pathname;
/** Debian's python3, which python3-xapian installs into (a python3 first on the PATH, pyenv's say, may not have it). */
const PYTHON = ['/usr/bin/python3', 'python3'].find((p) => spawnSync(p, ['-c', 'import xapian'], { stdio: 'ignore' }).status === 0);

/** Whether this machine has Xapian's Python bindings. */
export function hasXapian(): boolean {
  return PYTHON !== undefined;
}

/**
 * Indexes `pages` (each field with its weight: wdf increments are whole numbers, so the weights are
 * doubled and rounded) and resolves once Xapian holds them all.
 */
export async function startXapian(
  pages: Iterable<{ readonly id: number; readonly fields: Readonly<Record<string, string>> }>,
  weights: Readonly<Record<string, number>>,
): Promise<XapianAnchor> {
  if (!PYTHON) throw new Error('no python3 here imports xapian: apt-get install python3-xapian');
  const child = spawn(PYTHON, [SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const wdf = Object.fromEntries(Object.entries(weights).map(([f, w]) => [f, Math.max(1, Math.round(2 * w))]));
  for (const p of pages) child.stdin.write(`${JSON.stringify({ id: p.id, fields: p.fields, weights: wdf })}\n`);
  child.stdin.write('\n');
  const ready = await lines.next();
  if (ready.done) throw new Error('the Xapian anchor ended before it had indexed the pages');
  // (One query at a time, in turn: each answer is the next line.)
  let turn: Promise<unknown> = Promise.resolve();
  return {
    search: (q) => {
      const answer = turn.then(async () => {
        child.stdin.write(`${q.replace(/\s+/g, ' ')}\n`);
        const line = await lines.next();
        if (line.done) throw new Error('the Xapian anchor ended');
        return JSON.parse(line.value) as number[];
      });
      turn = answer.catch(() => undefined);
      return answer;
    },
    close: () => child.stdin.end(),
  };
}
