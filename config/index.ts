export { configSchema, DEFAULT_USER_AGENT, ENV_VARS, type Config, type ConfigInput } from './schema.ts';
export { loadConfig, ConfigError, type ConfigSources } from './load.ts';
export { PRODUCT_VERSION, PROJECT_URL } from './version.ts';
