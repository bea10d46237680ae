/** Search over shards (issue 22): a shard's side (shard-node.ts) and a coordinator's (coordinator.ts). */
export { ShardedSearcher, type ShardState, type ShardTransport } from './coordinator.ts';
export { ShardNode, type SearchAsked, type ShardAnswer, type ShardInfo, type ShardSuggestion, type TermsAsked } from './shard-node.ts';
export type { CorpusStats, TermReport } from './statistics.ts';
