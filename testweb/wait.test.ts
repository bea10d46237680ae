import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { anyOf, onChangeIn, onEvent, onOutput, waitFor } from './wait.ts';

describe('waitFor', () => {
  it('looks at the condition at the start and after each event, and resolves with its value', async () => {
    const emitter = new EventEmitter();
    let n = 0;
    let looks = 0;
    const waited = waitFor(
      () => {
        looks++;
        return n >= 2 && `n is ${n}`;
      },
      onEvent(emitter, 'changed'),
      { what: 'n to reach 2' },
    );
    await new Promise((r) => setImmediate(r));
    assert.equal(looks, 1, 'looked once at the start');
    n = 1;
    emitter.emit('changed');
    await new Promise((r) => setImmediate(r));
    n = 2;
    emitter.emit('changed');
    assert.equal(await waited, 'n is 2');
    assert.equal(looks, 3);
    assert.equal(emitter.listenerCount('changed'), 0, 'it stops listening once the condition holds');
  });

  it('looks once at a time: events during a look ask for one more look after it, not one each', async () => {
    const emitter = new EventEmitter();
    let looks = 0;
    let release: (() => void) | undefined;
    const waited = waitFor(
      async () => {
        // (The first look is slow, and finds nothing; the events come meanwhile.)
        if (++looks > 1) return true;
        await new Promise<void>((r) => (release = r));
        return false;
      },
      onEvent(emitter, 'changed'),
      { what: 'the flag' },
    );
    await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 5; i++) emitter.emit('changed');
    release!();
    assert.equal(await waited, true);
    assert.equal(looks, 2);
  });

  it('fails naming what it waited for once the timeout (a bound for a hang) has passed', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const waited = waitFor(() => false, onEvent(new EventEmitter(), 'never'), { what: 'something that never comes', timeoutMs: 5000 });
    t.mock.timers.tick(5000);
    await assert.rejects(waited, /waited 5000 ms for something that never comes/);
  });

  it('fails when the process that was to print the line exits without it, after reading all it printed', async () => {
    const child = spawn(process.execPath, ['-e', 'console.log("ready at 1"); console.error("bye")'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    await assert.rejects(
      waitFor(() => /ready at 2/.test(output), onOutput(child), { what: 'the second line' }),
      /never saw the second line: the process exited \(code 0\)/,
    );
    assert.match(output, /bye/, 'what it printed was read first');
    const late = spawn(process.execPath, ['-e', 'console.log("ready at 3")'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    late.stdout.on('data', (d: Buffer) => (printed += d.toString()));
    await once(late, 'close');
    assert.equal(await waitFor(() => /ready at (\d)/.exec(printed)?.[1], onOutput(late), { what: 'a line printed before it exited' }), '3');
  });

  it('wakes on a file written in a directory, and on any of several signals', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-wait-'));
    let written = false;
    const waited = waitFor(() => written, anyOf(onEvent(new EventEmitter(), 'never'), onChangeIn(dir)), { what: 'the file' });
    await new Promise((r) => setImmediate(r));
    written = true;
    writeFileSync(join(dir, 'f'), 'x');
    assert.equal(await waited, true);
  });
});
