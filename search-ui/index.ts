export { createApp, type UiDeps } from './app.ts';
export { listen, type RunningServer } from './server.ts';
export { seedCause, seedTrouble, statusLine } from './status-line.ts';
