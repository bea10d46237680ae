import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSynonym } from './curation.ts';

describe('synonym lines', () => {
  it('parses groups, one-way rules and quoted phrases, normalized', () => {
    assert.deepEqual(parseSynonym('K8s,  Kubernetes'), { line: 'K8s,  Kubernetes', from: ['k8s', 'kubernetes'], to: ['k8s', 'kubernetes'], oneWay: false });
    assert.deepEqual(parseSynonym('kill => terminate, cancel'), {
      line: 'kill => terminate, cancel',
      from: ['kill'],
      to: ['terminate', 'cancel'],
      oneWay: true,
    });
    assert.deepEqual(parseSynonym('"long  running" => statement_timeout'), {
      line: '"long  running" => statement_timeout',
      from: ['long running'],
      to: ['statement_timeout'],
      oneWay: true,
    });
    assert.deepEqual(parseSynonym('a, b => b, c'), { line: 'a, b => b, c', from: ['a', 'b'], to: ['c'], oneWay: true });
  });

  it('says what is wrong with a line it cannot take', () => {
    for (const [line, why] of [
      ['k8s', /two entries or more/],
      ['a => b => c', /one "=>"/],
      ['a,,b', /empty entry/],
      ['a => ', /empty entry/],
      ['"a b => c', /quote/],
      ['a, b => a', /adds nothing/],
    ] as const) {
      const r = parseSynonym(line);
      assert.ok('error' in r, line);
      assert.match(r.error, why);
    }
  });
});
