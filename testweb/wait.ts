/**
 * Waiting in tests for a condition, never for the clock. A test names what it waits for, a probe
 * that says whether it holds, and the signal that may have made it hold: an event of ours, a chunk
 * a child process prints, a change in a directory, a PostgreSQL notification (testweb/postgres.ts).
 * The probe is looked at once at the start, then again after each signal.
 *
 * Only where nothing can signal the condition (another process's index, the processes in /proc)
 * does a test poll, with `every(ms)`, and says beside it why no event exists. Either way the
 * timeout is a bound for a hang — a test that would otherwise never end fails, naming what it
 * waited for — never the thing a test measures: on a loaded machine a wait may take long.
 */
import type { ChildProcess } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { watch } from 'node:fs';

/** How long a wait lasts at most unless told: a bound for a hang on a loaded 2-core machine. */
export const HANG_MS = 60_000;

/**
 * What tells a wait that its condition may have changed: it calls `wake` on each such event, and
 * `fail` when the condition can no longer come true (the process that was to print a line has
 * exited). Returns how to stop listening.
 */
export type Signal = (wake: () => void, fail: (why: string) => void) => () => void;

export type WaitOptions = {
  /** What is waited for, as the failure names it ("the server address"). */
  readonly what: string;
  /** A bound for a hang (default HANG_MS), never the thing tested. */
  readonly timeoutMs?: number;
};

/** Whether the condition holds: its value when it does (anything but undefined or false), else undefined or false. */
export type Probe<T> = () => T | undefined | false | Promise<T | undefined | false>;

/**
 * Resolves with the probe's value once the condition holds, looked at now and after each signal
 * (one look at a time: signals during a look ask for one more after it). Rejects, naming `what`,
 * when the probe throws, when the signal says the condition can never hold (after a last look),
 * or after the timeout.
 */
export function waitFor<T>(probe: Probe<T>, on: Signal, options: WaitOptions): Promise<T> {
  const { what, timeoutMs = HANG_MS } = options;
  return new Promise<T>((resolve, reject) => {
    let done = false;
    let looking = false;
    let again = false;
    let failing: string | undefined;
    let stop: (() => void) | undefined;
    const finish = (outcome: { value: T } | { error: Error }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stop?.();
      if ('value' in outcome) resolve(outcome.value);
      else reject(outcome.error);
    };
    const look = (): void => {
      if (done) return;
      if (looking) {
        again = true;
        return;
      }
      looking = true;
      Promise.resolve()
        .then(probe)
        .then(
          (v) => {
            looking = false;
            if (v !== undefined && v !== false) return finish({ value: v });
            if (failing !== undefined) return finish({ error: new Error(`never saw ${what}: ${failing}`) });
            if (again) {
              again = false;
              look();
            }
          },
          (e: unknown) => finish({ error: new Error(`while waiting for ${what}: ${(e as Error).message}`, { cause: e }) }),
        );
    };
    const timer = setTimeout(() => finish({ error: new Error(`waited ${timeoutMs} ms for ${what}`) }), timeoutMs);
    stop = on(look, (why) => {
      // (One last look: what the signal delivered before it failed may have made the condition hold.)
      failing = why;
      look();
    });
    if (done) stop();
    look();
  });
}

/** Each `event` of an emitter (a crawler's 'fetch', a feed's 'indexed'). */
export function onEvent(emitter: EventEmitter, event: string): Signal {
  return (wake) => {
    emitter.on(event, wake);
    return () => emitter.off(event, wake);
  };
}

/** Each chunk a child process prints, on stdout or stderr; it fails once the process has exited and its output is read. */
export function onOutput(child: ChildProcess): Signal {
  return (wake, fail) => {
    const closed = (code: number | null, signal: NodeJS.Signals | null) => fail(`the process exited (${signal ?? `code ${code}`})`);
    child.stdout?.on('data', wake);
    child.stderr?.on('data', wake);
    child.on('close', closed);
    if (child.exitCode !== null || child.signalCode !== null) closed(child.exitCode, child.signalCode);
    return () => {
      child.stdout?.off('data', wake);
      child.stderr?.off('data', wake);
      child.off('close', closed);
    };
  };
}

/**
 * Each change in a directory (fs.watch: a file written, created or renamed). Not for a probe that
 * opens a SQLite database there: opening it touches its WAL, which wakes the wait again, and again.
 */
export function onChangeIn(dir: string): Signal {
  return (wake, fail) => {
    const watcher = watch(dir, () => wake());
    watcher.on('error', (e) => fail(`watching ${dir}: ${e.message}`));
    return () => watcher.close();
  };
}

/** Any of these signals. */
export function anyOf(...signals: Signal[]): Signal {
  return (wake, fail) => {
    const stops = signals.map((s) => s(wake, fail));
    return () => {
      for (const stop of stops) stop();
    };
  };
}

/**
 * Every `ms`: a poll, for a condition that nothing can signal — where it is used, a comment says
 * why no event exists.
 */
export function every(ms: number): Signal {
  return (wake) => {
    const timer = setInterval(wake, ms);
    return () => clearInterval(timer);
  };
}
