export { startFakeWeb, type FakeWeb, type FakeWebOptions, type LoggedRequest } from './fake-web.ts';
export { serveHandler, type HandlerServer } from './handler-server.ts';
