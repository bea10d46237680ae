/**
 * The frontier seen host by host: which hosts have work, how many URLs each has, and giving up
 * on a host. (Each host's politeness state — connections, delays, back-off — is the crawler's,
 * in RAM: crawler/frontier/hosts.ts.)
 */
import type { ErrorCode } from '../model/index.ts';

export interface HostStore {
  /** Hosts with queued URLs. */
  withWork(): Promise<string[]>;
  /** Hosts with a failed URL whose next attempt is due by `now`. */
  withDueRetries(now: number): Promise<string[]>;
  /** Hosts with a page whose revisit is due by `by`. */
  withDueRevisits(by: number): Promise<string[]>;
  /** How many URLs of each host (of these hosts, when given) were ever queued (limits.maxPagesPerHost). */
  urlCounts(hosts?: readonly string[]): Promise<Map<string, number>>;
  /** URLs of these hosts waiting to be fetched, by host. */
  queued(hosts: readonly string[]): Promise<Map<string, number>>;
  /** Marks every queued or failed URL of a host dead (a host given up on). Returns how many. */
  kill(host: string, error: ErrorCode, reason: string, now: number): Promise<number>;
}
