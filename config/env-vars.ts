/**
 * Which environment variables set which settings of the configuration schema (schema.ts), and as
 * what type: load.ts reads them; config/README.md lists them beside each setting.
 */
/** Environment variables that may set a field; they override the file, CLI flags override them. */
export const ENV_VARS: Readonly<Record<string, { path: string[]; type: 'string' | 'int' | 'list' | 'bool' }>> = {
  TRAWL_SEEDS: { path: ['seeds'], type: 'list' },
  TRAWL_USER_AGENT: { path: ['userAgent'], type: 'string' },
  TRAWL_CONCURRENCY: { path: ['concurrency'], type: 'int' },
  TRAWL_DATA_DIR: { path: ['dataDir'], type: 'string' },
  TRAWL_STORE: { path: ['store'], type: 'string' },
  TRAWL_HOST: { path: ['server', 'host'], type: 'string' },
  TRAWL_PORT: { path: ['server', 'port'], type: 'int' },
  TRAWL_ADMIN_TOKEN: { path: ['server', 'adminToken'], type: 'string' },
  TRAWL_ALLOWED_HOSTS: { path: ['server', 'allowedHosts'], type: 'list' },
  TRAWL_CORS_ORIGINS: { path: ['server', 'corsOrigins'], type: 'list' },
  TRAWL_RENDER: { path: ['render', 'mode'], type: 'string' },
  TRAWL_BROWSER: { path: ['render', 'browserPath'], type: 'string' },
  TRAWL_PROXY: { path: ['fetch', 'proxy'], type: 'string' },
  TRAWL_ARCHIVE_WARC: { path: ['archive', 'warc'], type: 'bool' },
  TRAWL_ARCHIVE_FORMAT: { path: ['archive', 'format'], type: 'string' },
  // The usual variables, upper and lower case (a lower-case one, when set, wins: read last).
  HTTP_PROXY: { path: ['fetch', 'httpProxy'], type: 'string' },
  HTTPS_PROXY: { path: ['fetch', 'httpsProxy'], type: 'string' },
  NO_PROXY: { path: ['fetch', 'noProxy'], type: 'string' },
  http_proxy: { path: ['fetch', 'httpProxy'], type: 'string' },
  https_proxy: { path: ['fetch', 'httpsProxy'], type: 'string' },
  no_proxy: { path: ['fetch', 'noProxy'], type: 'string' },
  TRAWL_LOG_LEVEL: { path: ['logLevel'], type: 'string' },
  TRAWL_SHARD: { path: ['cluster', 'shard'], type: 'string' },
  TRAWL_SHARDS: { path: ['cluster', 'shards'], type: 'list' },
};
