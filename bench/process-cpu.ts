/**
 * CPU seconds of processes, read from Linux's /proc (bench/scale): a crawler process with its
 * threads, and a PostgreSQL server with every backend it started, those that exited included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

/** A process's CPU seconds (all its threads, its waited-for children) from /proc, or undefined when gone. */
export function procCpu(pid: number): number | undefined {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // After "pid (comm) ": state is field 3, so utime (14) … cstime (17) are at 11 … 14 here.
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds of a PostgreSQL server: the postmaster's (with its exited children's) and its live children's. */
export function serverCpu(postmaster: number): number {
  let total = procCpu(postmaster) ?? 0;
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const f = readFileSync(`/proc/${e}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(f[1]) === postmaster) total += procCpu(Number(e)) ?? 0;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** The PostgreSQL server's postmaster: the parent of the backend serving `admin`. */
export async function postmasterOf(admin: pg.Client): Promise<number> {
  const pid = Number((await admin.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p);
  return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
}
