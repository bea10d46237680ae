export { createNormalizer, type NormalizeOptions, type NormalizeResult, type Normalizer } from './normalize.ts';
export { hostAliasMapper, parseHostAlias, type HostAlias } from './aliases.ts';
export { buildScope, parseScopeRule, ruleMatches, seedHostRules, type Scope, type ScopeRule, type ScopeVerdict } from './scope.ts';
export {
  admit,
  defaultFilters,
  type Admission,
  type Candidate,
  type FilterLimits,
  type FilterVerdict,
  type RejectReason,
  type UrlFilter,
  type UrlPolicy,
} from './filters.ts';
