/** What every command shares: turning flags into config, logging, exit codes, signals. */
import { ConfigError, loadConfig, type Config } from '../config/index.ts';
import { createLog, type Logger } from '../lib/log.ts';

/** A mistake in how the command was called. Exit code 2, like an invalid config. */
export class UsageError extends Error {
  readonly code = 'ERR_USAGE';
}

export type CommonFlags = {
  config?: string;
  data?: string;
  store?: string;
  port?: string;
  render?: string;
  archive?: boolean;
  shard?: string;
  shards?: string;
};

/** The logger every stage is given (lib/log.ts: JSON lines off a terminal); its level follows the config. */
export const log: Logger = createLog();

/**
 * The command's own output to the person who typed it — a result, a summary, an error — as plain
 * lines on stderr, whatever the logger does (stdout is kept for what a command prints as its answer).
 */
export const say = (message: string): void => {
  process.stderr.write(`[trawl] ${message}\n`);
};

/** Loads the config: file < environment < flags. Positional URLs replace the configured seeds. */
export function configFrom(flags: CommonFlags, urls: readonly string[] = [], extra: Record<string, unknown> = {}): Readonly<Config> {
  const overrides: Record<string, unknown> = { ...extra };
  if (urls.length) overrides.seeds = [...urls];
  if (flags.data !== undefined) overrides.dataDir = flags.data;
  if (flags.store !== undefined) overrides.store = flags.store;
  if (flags.archive) overrides.archive = { ...(overrides.archive as object | undefined), warc: true };
  if (flags.render !== undefined) overrides.render = { ...(overrides.render as object | undefined), mode: flags.render };
  if (flags.shard !== undefined || flags.shards !== undefined) {
    const shards = flags.shards
      ?.split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    overrides.cluster = {
      ...(overrides.cluster as object | undefined),
      ...(flags.shard !== undefined ? { shard: flags.shard } : {}),
      ...(shards ? { shards } : {}),
    };
  }
  if (flags.port !== undefined) {
    if (!/^\d{1,5}$/.test(flags.port) || Number(flags.port) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${flags.port}"`);
    overrides.server = { ...(overrides.server as object | undefined), port: Number(flags.port) };
  }
  const config = loadConfig({ file: flags.config, env: process.env, overrides });
  log.level = config.logLevel;
  return config;
}

/** Exit code for an error that reached the top: 2 for the user's input, 1 for everything else. */
export function exitCodeOf(e: unknown): number {
  // (A topic file or classifier module that cannot be used, a data directory without a crawl,
  // render.mode always without a browser, a store URL that is malformed or where no database
  // answers, or a shard without a shared store, is the user's input too.)
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof UsageError ||
    e instanceof ConfigError ||
    ['ERR_TOPIC', 'ERR_CLASSIFIER', 'ERR_NO_CRAWL', 'ERR_NO_BROWSER', 'ERR_STORE_LOCATION', 'ERR_SHARD'].includes(code as string)
    ? 2
    : 1;
}

/**
 * Calls `stop` once on the first SIGINT/SIGTERM; a second signal while stopping exits at once
 * (SQLite stays consistent: every write is a transaction).
 */
export function onStopSignal(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn(`${signal} again: exiting without waiting`);
      process.exit(130);
    }
    stopping = true;
    log.info(`${signal}: stopping gracefully (finishing in-flight requests, flushing the index)…`);
    stop(signal).then(
      () => process.exit(0),
      (e: unknown) => {
        log.error(`error while stopping: ${(e as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/** Settings of a crawl that reads archives instead of the web: every URL admitted, nothing queued to fetch, nothing rendered. */
export const IMPORT_SETTINGS = { scope: { allow: ['URL:.*'], exclude: [] }, limits: { maxDepth: 0 }, render: { mode: 'never' } };
