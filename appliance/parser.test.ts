// The parser the appliance wires (parserOf): pages and documents in pools of their own, analyzed for
// the index in the page workers, the language detector loaded there and never on the main thread.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DEFAULT_CONFIG } from '../config/defaults.ts';
import { loadConfig } from '../config/index.ts';
import type { RoutedParser } from '../crawler/parse/index.ts';
import type { ParsePool } from '../crawler/parse/index.ts';
import { detectorLoaded } from '../indexer/ingest/language/detect.ts';
import { silentLog } from '../lib/log.ts';
import { multiPagePdf } from '../testweb/documents.ts';
import { parseSettingsOf, parserOf } from './wiring.ts';

const GERMAN =
  '<title>Wetter</title><p>Der Wind weht heute stark über die Felder, und die Bauern bringen die Ernte schnell in die Scheunen, bevor der Regen kommt.</p>';

/** What the config's defaults give every parse job (appliance/wiring.ts). */
const SETTINGS = parseSettingsOf(DEFAULT_CONFIG);

describe('parserOf', () => {
  const parsers: RoutedParser[] = [];
  after(async () => {
    await Promise.all(parsers.map((p) => p.close()));
  });

  it('detects a page\u2019s language in a page worker, even for the first pages, and never loads the detector on the main thread', async () => {
    const parser = parserOf(loadConfig({ overrides: { parseWorkers: 1 } }), silentLog);
    parsers.push(parser);
    // Asked at once, before the worker is ready: the main thread would parse it (and load the detector).
    const pages = await Promise.all(
      [1, 2, 3].map((i) => parser.parse({ body: Buffer.from(GERMAN), contentType: 'text/html', url: `http://e.org/${i}`, ...SETTINGS })),
    );
    for (const e of pages) assert.ok(e.kind === 'page' && e.page.lang === 'de-x-detected', JSON.stringify(e.kind === 'page' && e.page.lang));
    assert.equal(detectorLoaded(), false, 'the main thread has no detector');
    assert.equal((parser.pages as ParsePool).parsed.inline, 0);
    // A document's page is analyzed (and its language detected) in the page worker too.
    const pdf = await parser.parse({ body: await multiPagePdf(), contentType: 'application/pdf', url: 'http://e.org/q.pdf', ...SETTINGS });
    assert.ok(pdf.kind === 'page' && (pdf as { analysis?: unknown }).analysis, 'analyzed');
    assert.equal(detectorLoaded(), false);
  });
});
