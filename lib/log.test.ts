import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createLog } from './log.ts';

/** Logs into a file and returns what was written. */
function logged(options: Parameters<typeof createLog>[0], write: (log: ReturnType<typeof createLog>) => void): string {
  const file = join(mkdtempSync(join(tmpdir(), 'trawl-log-')), 'out');
  const fd = openSync(file, 'w');
  try {
    write(createLog({ ...options, fd }));
  } finally {
    closeSync(fd);
  }
  return readFileSync(file, 'utf8');
}

describe('the logger', () => {
  it('writes JSON lines with a level, a time and the message, off a terminal', () => {
    const out = logged({ pretty: false }, (log) => {
      log.info('crawl started "here"');
      log.warn('giving up on a.org');
    });
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((l) => [l.level, l.msg, l.name]),
      [
        ['info', 'crawl started "here"', 'trawl'],
        ['warn', 'giving up on a.org', 'trawl'],
      ],
    );
    assert.ok(lines.every((l) => typeof l.time === 'string' && !Number.isNaN(Date.parse(l.time as string))));
  });

  it('leaves out what is below its level, which can be changed after it is made', () => {
    const out = logged({ pretty: false, level: 'warn' }, (log) => {
      log.info('not shown');
      log.warn('shown');
      log.level = 'debug';
      log.debug('shown too');
    });
    assert.deepEqual(
      out
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { msg: string }).msg),
      ['shown', 'shown too'],
    );
  });

  it('writes lines for people on a terminal', () => {
    const out = logged({ pretty: true }, (log) => log.error('the index could not be flushed'));
    assert.match(out, /ERROR.*: the index could not be flushed/);
    assert.throws(() => JSON.parse(out));
  });
});
