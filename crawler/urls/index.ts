export { normalizeUrl, type NormalizeResult } from './normalize.ts';
export { buildScope, parseScopeRule, seedHostRules, type Scope, type ScopeRule, type ScopeVerdict } from './scope.ts';
export { admit, defaultFilters, type Admission, type Candidate, type FilterVerdict, type RejectReason, type UrlFilter } from './filters.ts';
