/**
 * Processes as Linux's /proc tells them, for the benches: CPU seconds of a crawler process with its
 * threads, and of a PostgreSQL server with every backend it started, those that exited included
 * (bench/scale); the tree below a process, its memory (PSS), and killing it whole (bench/render).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

/** A process's CPU seconds (all its threads, its waited-for children) from /proc, or undefined when gone. */
export function procCpu(pid: number): number | undefined {
  const p = readProc(String(pid));
  return p && (p.cpuTicks + p.childTicks) / 100;
}

/** CPU seconds of a PostgreSQL server: the postmaster's (with its exited children's) and its live children's. */
export function serverCpu(postmaster: number): number {
  let total = procCpu(postmaster) ?? 0;
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const p = readProc(e);
    if (p?.ppid === postmaster) total += (p.cpuTicks + p.childTicks) / 100;
  }
  return total;
}

/** The PostgreSQL server's postmaster: the parent of the backend serving `admin`. */
export async function postmasterOf(admin: pg.Client): Promise<number> {
  const pid = Number((await admin.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p);
  return readProc(String(pid))!.ppid;
}

/** What /proc/PID/stat tells of a process: its parent, name, CPU ticks (its own, its waited-for children's) and start time. */
export type ProcInfo = { pid: number; ppid: number; comm: string; cpuTicks: number; childTicks: number; start: string };

/** A process's /proc/PID/stat, or undefined when it is gone. */
export function readProc(pid: string): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const close = stat.lastIndexOf(')');
    const f = stat.slice(close + 2).split(' ');
    // f[0] is field 3 (state); ppid 4, utime 14, stime 15, cutime 16, cstime 17 (children waited for), starttime 22.
    return {
      pid: Number(pid),
      ppid: Number(f[1]),
      comm: stat.slice(stat.indexOf('(') + 1, close),
      cpuTicks: Number(f[11]) + Number(f[12]),
      childTicks: Number(f[13]) + Number(f[14]),
      start: f[19]!,
    };
  } catch {
    return undefined;
  }
}

/**
 * The processes below `rootPid` (not itself), each marked `browser` when it or an ancestor below
 * the root is Chromium (esbuild's service, which Trawl starts to bundle its parse worker, and the
 * `ps` Crawlee runs every second are not).
 */
export function descendants(rootPid: number): (ProcInfo & { browser: boolean })[] {
  const children = new Map<number, ProcInfo[]>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const p = readProc(e);
    if (!p) continue;
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const out: (ProcInfo & { browser: boolean })[] = [];
  const todo = (children.get(rootPid) ?? []).map((p) => ({ ...p, browser: /chrom/i.test(p.comm) }));
  for (let p = todo.pop(); p; p = todo.pop()) {
    out.push(p);
    const inBrowser = p.browser;
    todo.push(...(children.get(p.pid) ?? []).map((c) => ({ ...c, browser: inBrowser || /chrom/i.test(c.comm) })));
  }
  return out;
}

/** A process's proportional set size (its share of the memory it maps), 0 when gone. */
export function pssBytes(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Kills pid and everything below it, by pid (descendants collected first, so none is orphaned on the way). */
export function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const p of [...descendants(pid).map((d) => d.pid), pid]) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
}
