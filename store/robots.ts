/** The robots.txt cache, per host: what the last fetch of a host's robots.txt answered. */

/** A robots.txt fetch: its HTTP status (0: unreachable) and body (or why it was unreachable). */
export type RobotsEntry = { readonly fetchedAt: number; readonly status: number; readonly body: string };

export interface RobotsStore {
  get(host: string): Promise<RobotsEntry | undefined>;
  put(host: string, entry: RobotsEntry): Promise<void>;
}
