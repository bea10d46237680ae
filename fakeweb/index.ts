export { startFakeWeb, type FakeWeb, type FakeWebOptions, type LoggedRequest } from './fakeweb.ts';
export { serveHandler, type HandlerServer } from './handler-server.ts';
