/**
 * The one logger, passed down from the command line to every stage that reports something (pino):
 * levels; JSON lines when stderr is not a terminal (a service's log collector reads them), lines
 * for people when it is (pino-pretty). Written synchronously, so that nothing is lost when the
 * process exits right after. Stages depend on the small `Log` interface, not on pino.
 */
import { pino } from 'pino';
import { createRequire } from 'node:module';
import type PinoPrettyModule from 'pino-pretty';

// (pino-pretty is loaded for a terminal only: a crawl whose log goes to a file or a collector
// starts ~25 ms sooner. Not named `require`: the bundler would take it for the module system's.)
const load = createRequire(import.meta.url);

/** What a stage may log. */
export type Log = {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
};

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogOptions = {
  readonly level?: LogLevel;
  /** Lines for people (a terminal) instead of JSON lines; default: whether `fd` is a terminal. */
  readonly pretty?: boolean;
  /** Where to write (default 2: stderr). */
  readonly fd?: number;
};

/** A logger whose level can be changed once the config is read. */
export type Logger = Log & { level: string };

export function createLog(o: LogOptions = {}): Logger {
  const fd = o.fd ?? 2;
  const pretty = o.pretty ?? (fd === 2 ? process.stderr.isTTY === true : false);
  const options = { name: 'trawl', level: o.level ?? 'info' };
  if (pretty) {
    const PinoPretty = load('pino-pretty') as typeof PinoPrettyModule;
    return pino(
      options,
      PinoPretty({ sync: true, destination: fd, colorize: PinoPretty.isColorSupported, ignore: 'pid,hostname,name', translateTime: 'HH:MM:ss' }),
    );
  }
  return pino(
    { ...options, base: { name: 'trawl' }, formatters: { level: (label) => ({ level: label }) }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ fd, sync: true }),
  );
}

/** A logger that says nothing. */
export const silentLog: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A logger that hands every message, whatever its level, to `sink` (tests, embedding). */
export function logTo(sink: (message: string) => void): Log {
  return { debug: sink, info: sink, warn: sink, error: sink };
}
