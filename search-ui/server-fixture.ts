/**
 * Test fixture: what every caller of `createApp` gives besides the searcher, the status and the
 * version — the server settings the config always holds, at their defaults (read from
 * config/schema.ts, not restated here), and a logger that says nothing.
 */
import { loadConfig } from '../config/index.ts';
import { silentLog } from '../lib/log.ts';
import type { UiDeps } from './deps.ts';

export type ConfiguredDeps = Pick<UiDeps, 'log' | 'maxEventStreams' | 'hosts' | 'corsOrigins'>;

const { server } = loadConfig({ env: {} });

/** The settings `trawl serve` passes createApp when the config says nothing (cli/commands.ts `serverOptions`). */
export function serverDefaults(): ConfiguredDeps {
  return {
    log: silentLog,
    maxEventStreams: server.maxEventStreams,
    hosts: { bound: server.host, allowed: server.allowedHosts },
    corsOrigins: server.corsOrigins,
  };
}
