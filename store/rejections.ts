/** Why URLs were turned away (out of scope, robots.txt, already seen…), counted by reason. */
export interface RejectionStore {
  /** Adds `n` to each reason's count. */
  count(reasons: ReadonlyMap<string, number>): Promise<void>;
  /** Every reason with its count, most first. */
  all(): Promise<{ reason: string; count: number }[]>;
}
