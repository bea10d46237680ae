/** The PostgreSQL store: many Trawl processes on one database (issue 22). */
export { openPostgresStore, PostgresStore } from './store.ts';
export { isPostgresLocation, redactLocation, type PostgresOptions } from './db.ts';
export { SCHEMA_VERSION, type MigrationReport } from './migrations.ts';
