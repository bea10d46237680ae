// The docs must match the code: every setting in the schema is documented in config/README.md,
// and every example config validates.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { configSchema, loadConfig } from './index.ts';

function leafKeys(shape: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(shape).flatMap(([k, v]) => {
    let node = v as { shape?: Record<string, unknown>; def?: { innerType?: unknown; out?: unknown } };
    // (Through defaults, optionals and preprocessing pipes to the object inside.)
    for (let i = 0; i < 4 && !node.shape && (node.def?.innerType ?? node.def?.out); i++) node = (node.def!.innerType ?? node.def!.out) as typeof node;
    return node.shape ? leafKeys(node.shape, `${prefix}${k}.`) : [`${prefix}${k}`];
  });
}

describe('config docs', () => {
  const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
  const keys = leafKeys(configSchema.shape);

  it('lists the settings the issue requires', () => {
    for (const k of [
      'seeds',
      'scope.allow',
      'scope.exclude',
      'userAgent',
      'concurrency',
      'perHost.maxConnections',
      'perHost.delayMs',
      'limits.maxPages',
      'limits.maxDepth',
      'limits.maxBodyBytes',
      'limits.timeoutMs',
      'server.host',
      'server.port',
      'dataDir',
    ]) {
      assert.ok(keys.includes(k), `schema lacks ${k}`);
    }
  });

  it('documents every setting in config/README.md', () => {
    for (const k of keys) assert.ok(readme.includes(`\`${k}\``), `config/README.md does not document \`${k}\``);
  });

  it('has examples that all validate', () => {
    const dir = new URL('./examples/', import.meta.url);
    const files = readdirSync(dir);
    assert.ok(files.length >= 2);
    for (const f of files) assert.doesNotThrow(() => loadConfig({ file: new URL(f, dir).pathname }), `config/examples/${f}`);
  });
});

describe('example topics', () => {
  it('all parse, and every example config that names one names a file that exists', async () => {
    const { loadTopicFile } = await import('../crawler/focus/index.ts');
    const topics = new URL('./topics/', import.meta.url);
    const files = readdirSync(topics).filter((f) => f.endsWith('.txt'));
    assert.ok(files.length >= 2, 'two example topics at least');
    for (const f of files) assert.ok(loadTopicFile(new URL(f, topics).pathname).terms.length > 5, f);
    const dir = new URL('./examples/', import.meta.url);
    const focused = readdirSync(dir)
      .map((f) => loadConfig({ file: new URL(f, dir).pathname }))
      .filter((c) => c.focus.topicFile);
    assert.ok(focused.length >= 2);
    for (const c of focused) {
      assert.ok(c.seeds.length > 0, 'with seeds a user can try');
      assert.doesNotThrow(() => loadTopicFile(c.focus.topicFile!));
    }
  });
});
