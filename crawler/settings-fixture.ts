/**
 * Test fixture: the settings of crawl parts built by hand, from the config's defaults
 * (config/schema.ts, the one place they are) with a test's overrides — as the appliance's wiring
 * makes them from a config (appliance/wiring.ts).
 */
import { hostPolicyOf, limitsOf, urlPolicyOf } from '../appliance/wiring.ts';
import { type ConfigInput, loadConfig } from '../config/index.ts';
import type { CrawlerLimits } from './types.ts';
import type { HostPolicy } from './frontier/hosts.ts';
import type { UrlPolicy } from './urls/filters.ts';

/** The config's defaults with `overrides`. */
export const settings = (overrides: ConfigInput = {}) => loadConfig({ overrides });

/** The hosts' politeness (perHost.*) of the defaults with `perHost` overridden. */
export const hostPolicy = (perHost: NonNullable<ConfigInput['perHost']> = {}): HostPolicy => hostPolicyOf(settings({ perHost }));

/** The crawler's settings of the defaults with `overrides`. */
export const crawlerLimits = (overrides: ConfigInput = {}): CrawlerLimits => limitsOf(settings(overrides));

/** What a frontier adapter is given of the defaults with `overrides`: limits.maxPages and perHost.maxSuspensions. */
export const frontierLimits = (overrides: ConfigInput = {}) => {
  const c = settings(overrides);
  return { maxPages: c.limits.maxPages, maxSuspensions: c.perHost.maxSuspensions };
};

/** The URL policy (normalizer, filters; the seeds' hosts as the scope) of the defaults with `overrides`. */
export const urlPolicy = (seeds: readonly string[], overrides: ConfigInput = {}, urlsOfHost: (host: string) => number = () => 0): UrlPolicy =>
  urlPolicyOf(settings(overrides), seeds, urlsOfHost);
