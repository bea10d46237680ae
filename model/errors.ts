/**
 * The crawl's error vocabulary: a stable code for every way a URL can fail. Codes are stored on
 * the URL record and shown to users; never rename one. What each means and whether it is worth
 * another try is the crawler's policy (crawler/errors.ts).
 */
export type ErrorCode =
  | 'timeout'
  | 'dns'
  | 'refused'
  | 'reset'
  | 'tls'
  | 'bad-response'
  | 'network'
  | 'http-429'
  | 'http-5xx'
  | 'http-4xx'
  | 'http-other'
  | 'too-many-redirects'
  | 'blocked-address'
  | 'robots-unavailable'
  | 'host-suspended'
  | 'unparsable'
  | 'render-failed'
  | 'auth-failed'
  | 'proxy'
  | 'internal';
