export { ENV_VARS } from './env-vars.ts';
export { configSchema, DEFAULT_USER_AGENT, type Config, type ConfigInput } from './schema.ts';
export { loadConfig, ConfigError, type ConfigSources } from './load.ts';
export { PRODUCT_VERSION, PROJECT_URL } from './version.ts';
