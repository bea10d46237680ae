/**
 * The configuration that the schema's defaults alone make (no file, no environment, no flag),
 * parsed once and frozen. Tests and benchmarks build a stage from it, through the same wiring as
 * the appliance, when they set nothing themselves: a default is declared once, in schema.ts, and
 * no stage keeps a copy of its own. Product code never reads it (it would be a silent default):
 * the appliance has the config it was started with.
 */
import { loadConfig } from './load.ts';
import type { Config } from './schema.ts';

/** Every setting at its default. */
export const DEFAULT_CONFIG: Readonly<Config> = loadConfig();
