import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { parseSettingsOf } from '../../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { ParsePool } from '../parse/pool.ts';
import { afterDocument, GC_AFTER_BYTES, GC_FLOOR_BYTES, GC_HEADROOM_BYTES } from './gc.ts';

/** What the config's defaults give every parse job (appliance/wiring.ts). */
const SETTINGS = parseSettingsOf(DEFAULT_CONFIG);

describe('afterDocument', () => {
  it('does nothing on the main thread (no gc exposed there by it)', () => {
    const before = (globalThis as { gc?: unknown }).gc;
    afterDocument(GC_AFTER_BYTES * 10);
    assert.equal((globalThis as { gc?: unknown }).gc, before);
  });

  it('collects in a document worker after a large document, freeing what the document left', async () => {
    // An extractor that leaves ~80 MB of garbage, calls afterDocument and reports the heap before
    // and after it (as the "type" of an unsupported result). Run by a pool, as documents are.
    const dir = mkdtempSync(join(tmpdir(), 'trawl-gc-'));
    const module = join(dir, 'garbage.ts');
    writeFileSync(
      module,
      `import { getHeapStatistics } from 'node:v8';
import { afterDocument } from ${JSON.stringify(fileURLToPath(new URL('./gc.ts', import.meta.url)))};
export function extract(job) {
  let keep = [];
  for (let i = 0; i < 200; i++) keep.push(new Array(50000).fill(i));
  keep = null;
  const before = getHeapStatistics().used_heap_size;
  afterDocument(job.body.byteLength);
  return { kind: 'unsupported', type: JSON.stringify({ before, after: getHeapStatistics().used_heap_size }) };
}\n`,
    );
    const pool = new ParsePool(1, {
      extractor: { module: pathToFileURL(module), extract: () => ({ kind: 'unsupported', type: 'inline' }) },
      inline: false,
      name: 'document',
    });
    try {
      const e = await pool.parse({ body: new Uint8Array(GC_AFTER_BYTES), contentType: 'application/pdf', url: 'http://e.org/a.pdf', ...SETTINGS });
      assert.equal(e.kind, 'unsupported');
      const { before, after } = JSON.parse((e as { type: string }).type) as { before: number; after: number };
      assert.ok(after < before - 40e6, `heap ${Math.round(before / 1e6)} MB → ${Math.round(after / 1e6)} MB`);
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('collects within a document once garbage outgrows the headroom over what is live, and not before', async () => {
    // An extractor that keeps ~20 MB live, then leaves a "page" of garbage under the headroom
    // (nothing happens) and then one well over it (a collection frees it), reporting the heap.
    const dir = mkdtempSync(join(tmpdir(), 'trawl-gc-'));
    const module = join(dir, 'pages.ts');
    writeFileSync(
      module,
      `import { getHeapStatistics } from 'node:v8';
import { afterPage } from ${JSON.stringify(fileURLToPath(new URL('./gc.ts', import.meta.url)))};
const used = () => getHeapStatistics().used_heap_size;
const garbage = (mb) => { let a = []; for (let i = 0; i < mb; i++) a.push(new Array(131072).fill(i)); a = null; };
export function extract(job) {
  const live = [];
  for (let i = 0; i < 20; i++) live.push(new Array(131072).fill(i));
  garbage(10);
  const small = [used()];
  afterPage();
  small.push(used());
  garbage(${Math.ceil((GC_FLOOR_BYTES + GC_HEADROOM_BYTES) / 1048576)});
  const large = [used()];
  afterPage();
  large.push(used());
  return { kind: 'unsupported', type: JSON.stringify({ small, large, live: live.length }) };
}\n`,
    );
    const pool = new ParsePool(1, {
      extractor: { module: pathToFileURL(module), extract: () => ({ kind: 'unsupported', type: 'inline' }) },
      inline: false,
      name: 'document',
      youngGenerationMb: 16,
    });
    try {
      const e = await pool.parse({ body: new Uint8Array(10), contentType: 'application/pdf', url: 'http://e.org/a.pdf', ...SETTINGS });
      const { small, large } = JSON.parse((e as { type: string }).type) as { small: number[]; large: number[] };
      const mb = (xs: number[]) => xs.map((x) => Math.round(x / 1e6)).join(' → ');
      assert.ok(small[1]! >= small[0]! - 1e6, `under the headroom nothing is collected: ${mb(small)} MB`);
      assert.ok(large[1]! < large[0]! - GC_HEADROOM_BYTES, `over it the garbage is collected: ${mb(large)} MB`);
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
