import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { exposure } from './commands.ts';

describe('a search over content behind a login, served to everyone', () => {
  const auth = [{ match: 'HOST:^wiki$', bearer: { tokenEnv: 'T' } }];
  const config = (server: Record<string, unknown>, withAuth = true) =>
    loadConfig({ env: { T: 'tok', S: 'pw' }, overrides: { server, ...(withAuth ? { auth } : {}) } });

  it('is warned about when the server listens beyond loopback without server.auth', () => {
    assert.match(exposure(config({ host: '0.0.0.0' })) ?? '', /answers everyone who can reach it: set server\.auth/);
    assert.match(exposure(config({ host: '10.1.2.3' })) ?? '', /server\.auth/);
  });

  it('is not, on loopback, with server.auth, or without auth', () => {
    assert.equal(exposure(config({ host: '127.0.0.1' })), undefined);
    assert.equal(exposure(config({ host: 'localhost' })), undefined);
    assert.equal(exposure(config({ host: '0.0.0.0', auth: { basic: { username: 'r', passwordEnv: 'S' } } })), undefined);
    assert.equal(exposure(config({ host: '0.0.0.0' }, false)), undefined);
  });
});
