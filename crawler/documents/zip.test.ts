import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflatedZeros, lyingDocx, zipBombDocx, zipFile } from '../../testweb/documents.ts';
import { DocumentRefusal } from './types.ts';
import { ZipArchive } from './zip.ts';

const refusal = (reason: string) => (e: unknown) => e instanceof DocumentRefusal && e.reason === reason;

/** Runs `f`, returning how long it took and how much the resident set grew meanwhile (MB). */
function measured(f: () => void): { ms: number; rssMB: number } {
  global.gc?.();
  const rss = process.memoryUsage().rss;
  const t0 = performance.now();
  f();
  return { ms: performance.now() - t0, rssMB: (process.memoryUsage().rss - rss) / 1e6 };
}

describe('ZipArchive', () => {
  it('reads stored and deflated entries by name, and UTF-16 XML by its byte-order mark', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<a>é</a>', 'utf16le')]);
    const zip = ZipArchive.open(
      zipFile([
        { name: 'mimetype', data: 'text/x', store: true },
        { name: 'dir/a.xml', data: '<a>bé</a>'.repeat(100) },
        { name: 'u.xml', data: utf16 },
      ]),
    );
    assert.deepEqual([...zip.entries.keys()], ['mimetype', 'dir/a.xml', 'u.xml']);
    assert.equal(zip.text('mimetype'), 'text/x');
    assert.equal(zip.text('dir/a.xml'), '<a>bé</a>'.repeat(100));
    assert.equal(zip.text('u.xml'), '<a>é</a>');
    assert.equal(zip.read('missing'), undefined);
  });

  it('refuses a zip that declares more entries than allowed, before reading any', () => {
    const many = zipFile(Array.from({ length: 10_001 }, (_, i) => ({ name: `f${i}`, data: '', store: true })));
    assert.throws(() => ZipArchive.open(many), refusal('zip-bomb'));
    assert.equal(ZipArchive.open(many, { maxEntries: 20_000 }).entries.size, 10_001);
  });

  it('refuses a DOCX whose entry inflates to gigabytes at once, without inflating anything', () => {
    const bomb = zipBombDocx();
    assert.ok(bomb.length < 3_000_000, `the bomb is small (${bomb.length} bytes)`);
    const { ms, rssMB } = measured(() => assert.throws(() => ZipArchive.open(bomb), refusal('zip-bomb')));
    assert.ok(ms < 100, `refused in ${ms.toFixed(1)} ms`);
    assert.ok(rssMB < 50, `RSS grew by ${rssMB.toFixed(1)} MB`);
  });

  it('refuses an entry whose declared compression ratio is absurd (over 200:1 above 1 MB)', () => {
    const zip = zipFile([{ name: 'a.xml', data: '', deflated: deflatedZeros(50), declaredSize: 50 * 1024 * 1024 }]);
    assert.throws(() => ZipArchive.open(zip), refusal('zip-bomb'));
    // Small entries compress that well legitimately.
    const small = ZipArchive.open(zipFile([{ name: 'a.xml', data: ' '.repeat(500_000) }]));
    assert.equal(small.read('a.xml')?.length, 500_000);
  });

  it('refuses, quickly and without allocating it, an entry that inflates to 100 MB while declaring 1 KB', () => {
    const zip = ZipArchive.open(lyingDocx());
    const { ms, rssMB } = measured(() => assert.throws(() => zip.read('word/document.xml'), refusal('zip-bomb')));
    assert.ok(ms < 100, `refused in ${ms.toFixed(1)} ms`);
    assert.ok(rssMB < 50, `RSS grew by ${rssMB.toFixed(1)} MB`);
  });

  it('refuses as damaged: not a zip, a cut zip, a shorter entry than declared, a bad CRC', () => {
    assert.throws(() => ZipArchive.open(Buffer.from('PK\x03\x04 not really')), refusal('damaged'));
    const whole = zipFile([{ name: 'a.xml', data: '<a/>'.repeat(1000) }]);
    assert.throws(() => ZipArchive.open(whole.subarray(0, whole.length - 30)), refusal('damaged'));
    const short = ZipArchive.open(zipFile([{ name: 'a.xml', data: 'abc', declaredSize: 10 }]));
    assert.throws(() => short.read('a.xml'), refusal('damaged'));
    const bad = Buffer.from(zipFile([{ name: 'a.xml', data: 'hello', store: true }]));
    bad[30 + 'a.xml'.length] = 'j'.charCodeAt(0); // "jello": same size, other CRC
    assert.throws(() => ZipArchive.open(bad).read('a.xml'), refusal('damaged'));
  });

  it('refuses an encrypted entry as encrypted', () => {
    const zip = Buffer.from(zipFile([{ name: 'a.xml', data: 'x' }]));
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt16LE(zip.readUInt16LE(central + 8) | 1, central + 8);
    assert.throws(() => ZipArchive.open(zip).read('a.xml'), refusal('encrypted'));
  });
});
