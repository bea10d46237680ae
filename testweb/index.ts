export { startFakeWeb, type FakeWeb, type FakeWebOptions, type LoggedRequest } from './fake-web.ts';
export { serveHandler, type HandlerServer } from './handler-server.ts';
export { LANGUAGE_PAGES, languagesWebHandler, type LanguagePage } from './languages-web.ts';
