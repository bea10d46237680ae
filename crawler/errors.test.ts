import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide, ERRORS, fromFetchCode, fromHttpStatus } from './errors.ts';

describe('the error vocabulary', () => {
  const policy = { maxAttempts: 3, baseDelayMs: 1000 };

  it('retries transient errors with exponential back-off, then gives up', () => {
    assert.deepEqual(decide('timeout', 1, policy, 0), { state: 'failed', retryAt: 1000 });
    assert.deepEqual(decide('http-5xx', 2, policy, 0), { state: 'failed', retryAt: 2000 });
    assert.deepEqual(decide('http-5xx', 3, policy, 0), { state: 'dead' });
  });

  it('waits at least what Retry-After asks', () => {
    assert.deepEqual(decide('http-429', 1, policy, 0, 60_000), { state: 'failed', retryAt: 60_000 });
  });

  it('never retries permanent errors', () => {
    for (const code of ['http-4xx', 'tls', 'too-many-redirects', 'internal'] as const) assert.deepEqual(decide(code, 1, policy, 0), { state: 'dead' }, code);
  });

  it('maps fetch codes and HTTP statuses to stable codes, each described', () => {
    assert.equal(fromFetchCode('timeout'), 'timeout');
    assert.equal(fromFetchCode('other'), 'network');
    assert.deepEqual([404, 410, 429, 500, 503, 302].map(fromHttpStatus), ['http-4xx', 'http-4xx', 'http-429', 'http-5xx', 'http-5xx', 'http-other']);
    for (const [code, p] of Object.entries(ERRORS)) assert.ok(p.describe.length > 5, code);
  });
});
