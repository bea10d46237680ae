export { createApp, type UiDeps } from './app.ts';
export { searchJson } from './api/search-json.ts';
export { listen, type RunningServer } from './server.ts';
export { seedCause, seedTrouble, statusLine } from './status-line.ts';
