/**
 * The settings of crawling behind a login and of a search that is not public: credentials per scope
 * (`auth`), and the search server's own (`server.auth`). Secrets are named only by where they come
 * from — an environment variable (`…Env`) or a file (`…File`) — never written in the config: a value
 * written inline is refused with a message that says how to give it. They become Secrets
 * (lib/secret.ts), read when the config is loaded and never shown.
 */
import { z } from 'zod';
import { Secret } from '../lib/secret.ts';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envName = z.string().regex(ENV_NAME, 'must be the name of an environment variable (letters, digits, _)');
const fromEnv = envName.transform((name) => Secret.fromEnv(name));
const fromFile = z
  .string()
  .min(1)
  .transform((path) => Secret.fromFile(path));

/** Keys that would hold a secret inline: refused, with how to give it instead. */
const INLINE = ['password', 'token', 'secret', 'value'] as const;

/** Refuses a secret written inline (`password: …`), saying how to give it instead. */
function noInlineSecret<T extends z.ZodType>(what: string, name: string, schema: T) {
  return z.preprocess((v, ctx) => {
    if (v && typeof v === 'object')
      for (const k of INLINE)
        if (k in v)
          ctx.issues.push({
            code: 'custom',
            message: `${what}: secrets are never written in the config; give ${name}Env (an environment variable) or ${name}File (a file) instead of ${k}`,
            input: v,
            path: [k],
          });
    return v;
  }, schema);
}

/** The secret of `…Env` or `…File`: exactly one of them. */
const one = (env: Secret | undefined, file: Secret | undefined) => (env ?? file)!;
const exactlyOne = (what: string, name: string) => ({ message: `${what}: give exactly one of ${name}Env or ${name}File` });

/** {username, passwordEnv | passwordFile} → {username, password}. */
const login = (what: string) =>
  noInlineSecret(
    what,
    'password',
    z
      .strictObject({ username: z.string().min(1), passwordEnv: fromEnv.optional(), passwordFile: fromFile.optional() })
      .refine((o) => (o.passwordEnv === undefined) !== (o.passwordFile === undefined), exactlyOne(what, 'password'))
      .transform((o) => ({ username: o.username, password: one(o.passwordEnv, o.passwordFile) })),
  );

/** {tokenEnv | tokenFile} → {token}. */
const bearer = (what: string) =>
  noInlineSecret(
    what,
    'token',
    z
      .strictObject({ tokenEnv: fromEnv.optional(), tokenFile: fromFile.optional() })
      .refine((o) => (o.tokenEnv === undefined) !== (o.tokenFile === undefined), exactlyOne(what, 'token'))
      .transform((o) => ({ token: one(o.tokenEnv, o.tokenFile) })),
  );

/** `{env: NAME}` or `{file: PATH}`: a header's or a cookie's value. */
const secretRef = z
  .strictObject({ env: fromEnv.optional(), file: fromFile.optional() })
  .refine((r) => (r.env === undefined) !== (r.file === undefined), { message: 'give exactly one of env (an environment variable) or file' })
  .transform((r) => (r.env ?? r.file)!);

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const authScopeSchema = (scopeRule: z.ZodType<string>, httpUrl: z.ZodType<string>, regex: z.ZodType<string>) =>
  z
    .strictObject({
      match: scopeRule,
      basic: login('auth[].basic').optional(),
      digest: login('auth[].digest').optional(),
      bearer: bearer('auth[].bearer').optional(),
      headers: z.record(z.string().regex(HEADER_NAME, 'must be a header name'), secretRef).optional(),
      cookies: z.record(z.string().regex(/^[^\s;=,]+$/, 'must be a cookie name'), secretRef).optional(),
      form: z
        .strictObject({
          url: httpUrl,
          fields: z.record(z.string(), z.string()).default({}),
          secretFields: z.record(z.string(), fromEnv).default({}),
          loggedOut: z
            .strictObject({
              urlMatches: regex.optional(),
              status: z.array(z.number().int().min(100).max(599)).default([401]),
            })
            .prefault({}),
          browser: z.boolean().default(false),
        })
        .optional(),
    })
    .refine((a) => [a.basic, a.digest, a.bearer].filter(Boolean).length <= 1, {
      message: 'an auth scope has at most one of basic, digest and bearer (they all use Authorization)',
    })
    .refine((a) => a.basic || a.digest || a.bearer || a.headers || a.cookies || a.form, {
      message: 'an auth scope needs credentials: basic, digest, bearer, headers, cookies or form',
    });

export const serverAuthSchema = z
  .strictObject({
    basic: login('server.auth.basic').optional(),
    bearer: bearer('server.auth.bearer').optional(),
  })
  .refine((a) => !(a.basic && a.bearer), { message: 'server.auth is basic or bearer, not both' })
  .optional();

/** Every Secret in the config, with where it is, for loadConfig to read them. */
export function secretsOf(value: unknown, path: string[] = []): { path: string; secret: Secret }[] {
  if (value instanceof Secret) return [{ path: path.join('.'), secret: value }];
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => secretsOf(v, [...path, Array.isArray(value) ? `[${k}]` : k]));
}
