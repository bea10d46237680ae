import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import { Secret } from './secret.ts';

describe('Secret', () => {
  it('reads its value from the environment or a file, and gives it only to reveal()', () => {
    const s = Secret.fromEnv('TEST_PW');
    s.resolve({ TEST_PW: 'hunter2-hunter2' });
    assert.equal(s.reveal(), 'hunter2-hunter2');
    for (const shown of [String(s), JSON.stringify({ s }), inspect({ s }), `${s}`]) assert.ok(!shown.includes('hunter2'), shown);
    assert.match(JSON.stringify(s), /secret from env TEST_PW/);
    const file = join(mkdtempSync(join(tmpdir(), 'trawl-secret-')), 'token');
    writeFileSync(file, 'tok-123\n');
    const f = Secret.fromFile(file);
    f.resolve({});
    assert.equal(f.reveal(), 'tok-123');
  });

  it('says where it could not be read from, never a value', () => {
    assert.throws(() => Secret.fromEnv('NOPE_X').resolve({}), /the environment variable NOPE_X is not set/);
    assert.throws(() => Secret.fromFile('/nonexistent/x').resolve({}), /cannot read \/nonexistent\/x: ENOENT/);
    assert.throws(() => Secret.fromEnv('Y').reveal(), /never read/);
  });
});
