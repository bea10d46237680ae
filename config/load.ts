/**
 * Config at the edge: defaults < file (JSON or YAML) < environment < CLI flags, validated once into a
 * frozen object. A bad value fails loudly with the field's path, what is wrong and how to fix it.
 */
import { readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { z } from 'zod';
import { editDistance } from '../lib/edit-distance.ts';
import { secretsOf } from './auth-schema.ts';
import { ENV_VARS } from './env-vars.ts';
import { configSchema, type Config } from './schema.ts';

// (yaml is loaded for a YAML config only: a crawl without one starts ~30 ms sooner. Not named
// `require`: the bundler would take it for the module system's.)
const load = createRequire(import.meta.url);
const parseYaml = (text: string): unknown => (load('yaml') as typeof import('yaml')).parse(text);

/** An invalid configuration. The CLI prints `message` and exits with code 2. */
export class ConfigError extends Error {
  readonly code = 'ERR_CONFIG';
  constructor(
    message: string,
    readonly problems: readonly string[] = [],
  ) {
    super(message);
  }
}

export type ConfigSources = {
  /** Path of a .json, .yaml or .yml file. */
  file?: string | undefined;
  /** The process environment (passed in: no module reads process.env by itself). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Values from CLI flags, already shaped like the config (e.g. `{server: {port: 9000}}`). */
  overrides?: Record<string, unknown>;
};

export function loadConfig(sources: ConfigSources = {}): Readonly<Config> {
  const fromFile = sources.file ? readConfigFile(sources.file) : {};
  const fromEnv = sources.env ? readEnv(sources.env) : {};
  const merged = deepMerge(deepMerge(fromFile, fromEnv), sources.overrides ?? {});
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    const where = sources.file ? ` (from ${sources.file}, the environment or the command line)` : '';
    const problems = result.error.issues.map((issue) => describeIssue(issue));
    throw new ConfigError(`invalid configuration${where}:\n${problems.map((p) => `  - ${p}`).join('\n')}`, problems);
  }
  // Secrets are read now: a missing variable or file is a configuration error, named, at start.
  const unread = secretsOf(result.data).flatMap(({ path, secret }) => {
    try {
      secret.resolve(sources.env ?? {});
      return [];
    } catch (e) {
      return [`${path}: ${(e as Error).message}`];
    }
  });
  if (unread.length) throw new ConfigError(`invalid configuration: secrets that cannot be read:\n${unread.map((p) => `  - ${p}`).join('\n')}`, unread);
  return deepFreeze(result.data);
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read config file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let data: unknown;
  try {
    data = extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(`config file ${file} is not valid ${extname(file) === '.json' ? 'JSON' : 'YAML'}: ${(e as Error).message}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new ConfigError(`config file ${file} must hold an object of settings (e.g. "seeds: [https://docs.example.org/]")`);
  }
  return relativeToFile(data as Record<string, unknown>, file);
}

/** Files a config file names (a topic, a classifier module) are found beside it, wherever Trawl runs. */
function relativeToFile(data: Record<string, unknown>, file: string): Record<string, unknown> {
  const focus = data.focus;
  if (!isPlainObject(focus)) return data;
  const out = { ...focus };
  for (const key of ['topicFile', 'classifier']) {
    const v = out[key];
    if (typeof v === 'string' && v && !isAbsolute(v)) out[key] = resolve(dirname(file), v);
  }
  return { ...data, focus: out };
}

function readEnv(env: Readonly<Record<string, string | undefined>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(ENV_VARS)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    let value: unknown = raw;
    if (spec.type === 'int') {
      value = /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
    } else if (spec.type === 'bool') {
      value = /^(1|true|yes|on)$/i.test(raw.trim()) ? true : /^(0|false|no|off)$/i.test(raw.trim()) ? false : raw;
    } else if (spec.type === 'list') {
      value = raw.split(/[\s,]+/).filter(Boolean);
    }
    setPath(out, spec.path, value);
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.join('.');
  if (issue.code === 'unrecognized_keys') {
    const parent = issue.path.length ? `${path}.` : '';
    return issue.keys
      .map((k) => {
        const known = knownKeysAt(issue.path.map(String));
        const near = closest(k, known);
        return `\`${parent}${k}\` is not a setting${near ? `; did you mean \`${parent}${near}\`?` : ''} (known here: ${known.join(', ')})`;
      })
      .join('; ');
  }
  const doc = docAt(issue.path.map(String));
  return `\`${path || '(root)'}\`: ${issue.message}${doc ? ` — ${doc}` : ''}`;
}

/** Walks the schema to the object at `path` and lists its keys. */
function knownKeysAt(path: string[]): string[] {
  let node: unknown = configSchema;
  for (const key of path) node = unwrap(node)?.shape?.[key];
  return Object.keys(unwrap(node)?.shape ?? {});
}

function docAt(path: string[]): string | undefined {
  let node: unknown = configSchema;
  for (const key of path) {
    const shape = unwrap(node)?.shape;
    if (!shape || !(key in shape)) break;
    node = shape[key];
  }
  return (node as { description?: string } | undefined)?.description;
}

type ShapeHolder = { shape?: Record<string, unknown> };
function unwrap(node: unknown): ShapeHolder | undefined {
  let n = node as { shape?: Record<string, unknown>; unwrap?: () => unknown; def?: { innerType?: unknown } } | undefined;
  for (let i = 0; i < 5 && n && !n.shape; i++) n = (n.def?.innerType ?? n.unwrap?.()) as typeof n;
  return n;
}

function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDist = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase(), bestDist);
    if (d < bestDist) [best, bestDist] = [c, d];
  }
  return best;
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let node = obj;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[path[path.length - 1]!] = value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k] as Record<string, unknown>, v) : v;
  }
  return out;
}

function deepFreeze<T>(obj: T): Readonly<T> {
  if (typeof obj === 'object' && obj !== null) {
    for (const v of Object.values(obj)) deepFreeze(v);
    Object.freeze(obj);
  }
  return obj;
}
