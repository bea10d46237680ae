/** The API's counts and times, one shape each for every schema (schemas.ts, status-schema.ts, crawl-schemas.ts). */
import { z } from '@hono/zod-openapi';

export const count = z.number().int().min(0);
/** A time: ISO 8601 in UTC, as every time in the API is (`2026-11-22T10:00:00.000Z`). */
export const iso = z.iso.datetime();
export const isoOrNull = iso.nullable();

/** True when schema `S` describes the model's type `T` (a test at compile time: never, and the build fails, when not). */
export type Described<T, S extends z.ZodType> = z.output<S> extends T ? true : never;
