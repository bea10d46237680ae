// Site chrome stays out of the text: markup that says so (data-trawl-ignore), the config's selectors
// per host (extract.exclude, carried by the parse job), navigation found by its links, and the
// host's template (blocks.ts) — links inside all of them still count.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSettingsOf } from '../../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { lineHash } from './blocks.ts';
import { extract, type Extracted, type ParseJob } from './extract.ts';
import { parseHtml } from './html.ts';

/** What the config's defaults give every parse job (appliance/wiring.ts). */
const SETTINGS = parseSettingsOf(DEFAULT_CONFIG);
const { robotsToken, maxLinks } = SETTINGS;

function extractNow(job: ParseJob): Extracted {
  const e = extract(job);
  assert.ok(!(e instanceof Promise));
  return e;
}

const PROSE =
  'VACUUM reclaims storage occupied by dead tuples. ' +
  'In normal PostgreSQL operation, tuples that are deleted or obsoleted by an update ' +
  'are not physically removed from their table; they remain present until a VACUUM is done.';

/** DocBook's page chrome, as in the PostgreSQL docs (sql-vacuum.html, trimmed). */
const DOCBOOK =
  '<html><head><title>VACUUM</title></head><body>\n' +
  '<div class="navheader"><table width="100%" summary="Navigation header"><tr><th colspan="5" align="center">VACUUM</th></tr><tr>' +
  '<td width="10%" align="left"><a accesskey="p" href="sql-update.html" title="UPDATE">Prev</a> </td><td width="10%" align="left">' +
  '<a accesskey="u" href="sql-commands.html" title="SQL Commands">Up</a></td><th width="60%" align="center">SQL Commands</th>' +
  '<td width="10%" align="right"><a accesskey="h" href="index.html">Home</a></td><td width="10%" align="right">' +
  ' <a accesskey="n" href="sql-values.html" title="VALUES">Next</a></td></tr></table><hr /></div>\n' +
  '<div class="refentry"><div class="refnamediv"><h2><span class="refentrytitle">VACUUM</span></h2><p>' +
  'VACUUM — garbage-collect and optionally analyze a database</p></div>\n' +
  '<div class="refsect1"><h2>Description</h2><p>\n' +
  `   ${PROSE}\n` +
  '  </p></div></div>\n' +
  '<div class="navfooter"><hr /><table width="100%" summary="Navigation footer"><tr><td width="40%" align="left">' +
  '<a accesskey="p" href="sql-update.html">Prev</a> </td><td width="20%" align="center"><a accesskey="u" href="sql-commands.html">Up</a>' +
  '</td><td width="40%" align="right"> <a accesskey="n" href="sql-values.html">Next</a></td></tr><tr>' +
  '<td width="40%" align="left" valign="top">UPDATE </td><td width="20%" align="center"><a accesskey="h" href="index.html">Home</a></td>' +
  '<td width="40%" align="right" valign="top"> VALUES</td></tr></table></div></body></html>';

/** Sphinx's sidebar: a table of contents, the neighbours, a search box. */
const SPHINX =
  `<html><body><div class="document"><div class="body" role="main"><h1>Installing</h1><p>${PROSE}</p></div></div>\n` +
  '<div class="sphinxsidebar" role="navigation" aria-label="main navigation"></div>\n' +
  '<div class="sphinxsidebarwrapper"><h3>Table of Contents</h3><ul><li><a href="#">Installing</a><ul><li><a href="#from-source">' +
  'From source</a></li></ul></li></ul>\n' +
  '<h4>Previous topic</h4><p class="topless"><a href="intro.html">Introduction</a></p><h3>This Page</h3><ul class="this-page-menu"><li>' +
  '<a href="_sources/install.rst.txt">Show Source</a></li></ul></div></body></html>';

describe('site chrome', () => {
  it('regression: the first result for "vacuum full" began with PostgreSQL\u2019s navigation table ("VACUUM Prev Up SQL Commands Home Next")', () => {
    const p = parseHtml(DOCBOOK, 'http://docs.example.org/15/sql-vacuum.html', robotsToken, maxLinks);
    assert.equal(p.text, `VACUUM\nVACUUM — garbage-collect and optionally analyze a database\nDescription\n${PROSE.replace(/\s+/g, ' ')}`);
    for (const nav of ['Prev', 'Home', 'Next', 'SQL Commands', 'UPDATE', 'VALUES']) assert.ok(!p.text.includes(nav), nav);
    assert.deepEqual(
      new Set(p.links.map((l) => l.url.split('/').pop())),
      new Set(['sql-update.html', 'sql-commands.html', 'index.html', 'sql-values.html']),
      'its links still count',
    );
    assert.equal(p.links.find((l) => l.url.endsWith('sql-commands.html'))?.text, 'Up');
  });

  it('keeps a Sphinx sidebar\u2019s links out of the text; its headings go once they are the host\u2019s template', () => {
    const p = parseHtml(SPHINX, 'http://docs.example.org/install.html', robotsToken, maxLinks);
    assert.ok(!/Show Source|From source|Introduction/.test(p.text), p.text);
    assert.ok(p.links.some((l) => l.text === 'Show Source'));
    const learned = Uint32Array.from(['Table of Contents', 'Previous topic', 'This Page'].map(lineHash)).sort();
    const later = parseHtml(SPHINX, 'http://docs.example.org/install.html', robotsToken, maxLinks, { template: learned });
    assert.equal(later.text, `Installing\n${PROSE}`);
    assert.deepEqual(later.headings, ['Installing'], 'a template heading is not a heading of the page');
  });

  it('leaves out the text of any element marked data-trawl-ignore, and follows its links', () => {
    const p = parseHtml(
      `<body><p>${PROSE}</p><div data-trawl-ignore><p>Cookie notice: we use cookies.</p><a href="/privacy">Privacy policy</a></div>` +
        '<span data-trawl-ignore="">inline aside</span></body>',
      'http://e.org/',
      robotsToken,
      maxLinks,
    );
    assert.equal(p.text, PROSE);
    assert.deepEqual(
      p.links.map((l) => [l.url, l.text]),
      [['http://e.org/privacy', 'Privacy policy']],
    );
  });

  it('leaves out what a host\u2019s selectors (extract.exclude) name, carried by the parse job', () => {
    const html =
      '<body><div class="sidebar"><p>Sidebar: recent posts and a tag cloud of many words.</p><a href="/tags">All tags</a></div>' +
      `<table class="navheader"><tr><th>Long navigation title that would be kept</th></tr></table><p>${PROSE}</p></body>`;
    const job = (exclude?: string): ParseJob => ({
      body: Buffer.from(html),
      contentType: 'text/html',
      url: 'http://docs.example.org/p',
      ...SETTINGS,
      ...(exclude ? { exclude } : {}),
    });
    const plain = extractNow(job());
    assert.ok(plain.kind === 'page' && plain.page.text.includes('Sidebar'));
    const cut = extractNow(job('.sidebar, table.navheader'));
    assert.ok(cut.kind === 'page');
    assert.equal(cut.page.text, PROSE);
    assert.deepEqual(
      cut.page.links.map((l) => l.url),
      ['http://docs.example.org/tags'],
    );
  });

  it('gives every page a SimHash of its text, and the template learner its blocks', () => {
    const e = extractNow({ body: Buffer.from(DOCBOOK), contentType: 'text/html', url: 'http://e.org/15/vacuum', ...SETTINGS });
    const v16 = extractNow({
      body: Buffer.from(DOCBOOK.replace('sql-update', 'sql-upsert')),
      contentType: 'text/html',
      url: 'http://e.org/16/vacuum',
      ...SETTINGS,
    });
    assert.ok(e.kind === 'page' && v16.kind === 'page');
    assert.match(e.page.simhash ?? '', /^[0-9a-f]{16}$/);
    assert.equal(e.page.simhash, v16.page.simhash, 'only the chrome differs');
    assert.ok(e.page.blocks?.includes(lineHash('Description')));
    const text = extractNow({ body: Buffer.from('too short'), contentType: 'text/plain', url: 'http://e.org/a.txt', ...SETTINGS });
    assert.ok(text.kind === 'page' && text.page.simhash === undefined);
  });
});
