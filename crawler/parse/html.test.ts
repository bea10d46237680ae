import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSettingsOf } from '../../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { extract, type Extracted, type ParseJob } from './extract.ts';
import { FIELD_CAPS, parseHtml, parsePlainText } from './html.ts';
import { parseSitemap } from './sitemap.ts';

/** What the config's defaults give every parse job (appliance/wiring.ts). */
const SETTINGS = parseSettingsOf(DEFAULT_CONFIG);
const { robotsToken, maxLinks } = SETTINGS;

/** What extract() answers for a page, a sitemap or an unsupported type: at once, never a promise. */
function extractNow(job: ParseJob): Extracted {
  const e = extract(job);
  assert.ok(!(e instanceof Promise), 'a page is extracted synchronously');
  return e;
}

const PAGE = `<!doctype html><html lang="en"><head><title> The  Title </title>
<meta name="description" content="What the page is about">
<link rel="canonical" href="/canonical">
<script>var hidden = "scriptword";</script><style>.x{color:red}</style></head>
<body><header>Site header</header><nav><a href="/nav-link">Navigation</a></nav>
<main><h1>Main heading</h1><p>First paragraph.</p><p>Second paragraph with <a href="other?x=1#frag">an anchor</a>.</p>
<h2>Sub heading</h2><ul><li>one</li><li>two</li></ul>
<a href="/nf" rel="nofollow noopener">not followed</a><a href="/img"><img src="i.png" alt="Picture link"></a>
<a href="#local">local</a><a href="">empty</a></main><footer>Footer text</footer></body></html>`;

describe('parseHtml', () => {
  const p = parseHtml(PAGE, 'http://example.org/dir/page', robotsToken, maxLinks);

  it('extracts title, description, headings and language', () => {
    assert.equal(p.title, 'The Title');
    assert.equal(p.description, 'What the page is about');
    assert.deepEqual(p.headings, ['Main heading', 'Sub heading']);
    assert.equal(p.lang, 'en');
    assert.equal(p.canonical, 'http://example.org/canonical');
  });

  it('reads a meta refresh within 10 seconds as a forward to its URL, in every spelling', () => {
    const refresh = (content: string) =>
      parseHtml(`<meta http-equiv="Refresh" content="${content}"><p>Redirecting</p>`, 'http://example.org/dir/page', robotsToken, maxLinks).refresh;
    assert.equal(refresh('0; url=next.html'), 'http://example.org/dir/next.html');
    assert.equal(refresh('0;URL=/abs'), 'http://example.org/abs');
    assert.equal(refresh("3; url='quoted.html'"), 'http://example.org/dir/quoted.html');
    assert.equal(refresh('1, other.html'), 'http://example.org/dir/other.html');
    assert.equal(refresh('5.5; URL = http://other.org/x'), 'http://other.org/x');
    assert.equal(refresh('0'), undefined, 'a reload of the page itself');
    assert.equal(refresh('0; url=page'), undefined, 'a refresh to the page itself');
    assert.equal(refresh('600; url=next.html'), undefined, 'a slow refresh is not a redirect');
    assert.equal(refresh('soon; url=next.html'), undefined);
    assert.equal(p.refresh, undefined);
  });

  it('keeps the body text without scripts, styles, navigation, header or footer', () => {
    assert.match(p.text, /First paragraph\./);
    for (const boiler of ['scriptword', 'color:red', 'Navigation', 'Site header', 'Footer text']) assert.ok(!p.text.includes(boiler), boiler);
  });

  it('separates blocks so that words of adjacent blocks never glue together', () => {
    assert.match(p.text, /First paragraph\.\nSecond paragraph/);
    assert.match(p.text, /one\ntwo/);
  });

  it('extracts every link (navigation included) with its anchor text, resolved', () => {
    const byUrl = new Map(p.links.map((l) => [l.url, l]));
    assert.equal(byUrl.get('http://example.org/nav-link')?.text, 'Navigation');
    assert.equal(byUrl.get('http://example.org/dir/other?x=1#frag')?.text, 'an anchor');
    assert.equal(byUrl.get('http://example.org/img')?.text, 'Picture link', 'image alt text as anchor text');
    assert.equal(byUrl.get('http://example.org/nf')?.nofollow, true);
    assert.equal(byUrl.get('http://example.org/nav-link')?.nofollow, false);
    assert.ok(!p.links.some((l) => l.url.endsWith('#local')), 'same-page fragments are not links');
  });

  it('honours <base href>', () => {
    const b = parseHtml(
      '<html><head><base href="http://cdn.example.org/base/"></head><body><a href="x">x</a></body></html>',
      'http://example.org/',
      robotsToken,
      maxLinks,
    );
    assert.equal(b.links[0]?.url, 'http://cdn.example.org/base/x');
  });

  it("reads meta robots: noindex, nofollow, none, and the bot's own name", () => {
    const meta = (content: string, name = 'robots') =>
      parseHtml(`<html><head><meta name="${name}" content="${content}"></head><body>x</body></html>`, 'http://e.org/', robotsToken, maxLinks);
    assert.deepEqual([meta('noindex').noindex, meta('noindex').nofollow], [true, false]);
    assert.deepEqual([meta('nofollow').noindex, meta('nofollow').nofollow], [false, true]);
    assert.deepEqual([meta('NONE').noindex, meta('NONE').nofollow], [true, true]);
    assert.equal(meta('noindex', 'trawlbot').noindex, true);
    assert.equal(meta('noindex', 'otherbot').noindex, false);
  });

  it('falls back to the first heading, then the URL, for a title', () => {
    assert.equal(parseHtml('<h1>Heading</h1><p>x</p>', 'http://e.org/a', robotsToken, maxLinks).title, 'Heading');
    assert.equal(parseHtml('<p>x</p>', 'http://e.org/some%20file.html', robotsToken, maxLinks).title, 'some file.html');
  });

  it('survives broken markup', () => {
    const b = parseHtml('<html><body><p>unclosed <b>bold <a href="/x">link', 'http://e.org/', robotsToken, maxLinks);
    assert.match(b.text, /unclosed bold link/);
    assert.equal(b.links[0]?.url, 'http://e.org/x');
  });

  it('handles plain text pages', () => {
    const t = parsePlainText('line one\r\nline two\n', 'http://e.org/notes.txt');
    assert.deepEqual([t.title, t.text], ['notes.txt', 'line one\nline two']);
  });
});

describe('a page\u2019s links and the cap on them (limits.maxLinksPerPage)', () => {
  const many = (n: number) => `<title>index</title><ul>${Array.from({ length: n }, (_, i) => `<li><a href="/item/${i}">item ${i}</a>`).join('')}</ul>`;

  it('keeps every link of a real API index by default (regression: 9,585 links cut at 5,000, silently)', () => {
    assert.equal(maxLinks, 100_000, 'limits.maxLinksPerPage by default');
    const page = parseHtml(many(9585), 'http://e.org/core/arch/x86/index.html', robotsToken, maxLinks);
    assert.equal(page.links.length, 9585);
    assert.equal(page.links[9584]!.url, 'http://e.org/item/9584');
    assert.equal(page.linksCut, undefined, 'nothing cut, nothing said');
  });

  it('keeps the first links up to the cap and says how many it cut', () => {
    const page = parseHtml(many(250), 'http://e.org/', robotsToken, 100);
    assert.equal(page.links.length, 100);
    assert.deepEqual([page.links[0]!.url, page.links[99]!.url], ['http://e.org/item/0', 'http://e.org/item/99']);
    assert.equal(page.linksCut, 150);
  });

  it('is carried by a parse job', () => {
    const r = extractNow({ body: Buffer.from(many(30)), contentType: 'text/html', url: 'http://e.org/', ...SETTINGS, maxLinks: 10 });
    assert.ok(r.kind === 'page');
    assert.deepEqual([r.page.links.length, r.page.linksCut], [10, 20]);
  });
});

describe('a page\u2019s headings', () => {
  it('keeps every heading of a real long page (regression: rustdoc\u2019s error index, 505 codes, cut at 200)', () => {
    const codes = Array.from({ length: 505 }, (_, i) => `<h2 id="E${i}"><a href="#E${i}">E${String(i).padStart(4, '0')}</a></h2><p>Error ${i}.</p>`);
    const page = parseHtml(
      `<title>Error index</title><h1>Rust Compiler Error Index</h1>${codes.join('')}`,
      'http://e.org/error-index.html',
      robotsToken,
      maxLinks,
    );
    assert.equal(page.headings.length, 506);
    assert.equal(page.headings[505], 'E0504');
    const more = Array.from({ length: 1200 }, (_, i) => `<h3>Part ${i}</h3>`).join('');
    assert.equal(parseHtml(`<title>t</title>${more}`, 'http://e.org/', robotsToken, maxLinks).headings.length, FIELD_CAPS.headings);
  });
});

describe('a page\u2019s heading ids', () => {
  it('takes a heading\u2019s own id, an anchor\u2019s in it, or the id of the element just before it, by the heading\u2019s text', () => {
    const html = [
      '<title>t</title><nav><button id="menu-toggle"></button></nav>',
      '<h1>Page</h1>',
      '<h2 id="E0382"><a href="#E0382">E0382</a></h2><p>Moved.</p>',
      '<h2><a id="SQL-NOTES"></a>Notes</h2><p>Some notes.</p>',
      '<h3><a name="old-style">Old style</a></h3><p>x</p>',
      '<section id="basic-usage"><h2>Basic Usage</h2><p>y</p></section>',
      '<div id="wrapper"><p>text first</p><h2>No id</h2></div>',
      '<h2 id="has space">Spaced</h2>',
      // rustdoc's items: the id on the item's section, a "source" link, then its h4.
      '<section id="method.push"><a class="srclink" href="/src/vec.rs.html#10">source</a><a href="#method.push" class="anchor"></a>',
      '<h4 class="code-header">pub fn push(&amp;mut self, value: T)</h4></section>',
    ].join('');
    const page = parseHtml(html, 'http://e.org/', robotsToken, maxLinks);
    const push = 'pub fn push(&mut self, value: T)';
    assert.deepEqual(page.headings, ['Page', 'E0382', 'Notes', 'Old style', 'Basic Usage', 'No id', 'Spaced', push]);
    assert.deepEqual(page.headingIds, [
      ['E0382', 'E0382'],
      ['Notes', 'SQL-NOTES'],
      ['Old style', 'old-style'],
      ['Basic Usage', 'basic-usage'],
      [push, 'method.push'],
    ]);
    // The same over a DOM (a host's extract.exclude selectors need one: tree.ts).
    assert.deepEqual(parseHtml(html, 'http://e.org/', robotsToken, maxLinks, { exclude: '.ads' }).headingIds, page.headingIds);
    assert.equal(parseHtml('<title>t</title><h2>Plain</h2>', 'http://e.org/', robotsToken, maxLinks).headingIds, undefined, 'none: absent');
  });
});

describe('parseSitemap', () => {
  it('reads a urlset and a sitemap index', () => {
    assert.deepEqual(parseSitemap('<urlset><url><loc> http://e.org/a </loc><lastmod>2026-01-01</lastmod></url><url><loc>http://e.org/b</loc></url></urlset>'), {
      pages: [{ url: 'http://e.org/a', lastmod: '2026-01-01' }, { url: 'http://e.org/b' }],
      sitemaps: [],
    });
    assert.deepEqual(parseSitemap('<sitemapindex><sitemap><loc>http://e.org/s1.xml</loc></sitemap></sitemapindex>'), {
      pages: [],
      sitemaps: ['http://e.org/s1.xml'],
    });
    assert.equal(parseSitemap('<rss><channel/></rss>'), undefined);
  });

  it('reads what real sitemaps hold: a declaration, namespaces, comments, CDATA, entries without a loc', () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<!-- made by hand -->\n' +
      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n' +
      '      <url>\n' +
      '  <loc><![CDATA[http://e.org/a?x=1&y=2]]></loc>\n' +
      '  <image:image><image:loc>http://e.org/i.png</image:loc></image:image><lastmod> 2026-02-03T04:05:06Z </lastmod></url>\n' +
      '      <url><lastmod>2026-01-01</lastmod></url>\n' +
      '      <url><loc>http://e.org/b</loc><!-- no lastmod --></url>\n' +
      '    </urlset>';
    assert.deepEqual(parseSitemap(xml), {
      pages: [{ url: 'http://e.org/a?x=1&y=2', lastmod: '2026-02-03T04:05:06Z' }, { url: 'http://e.org/b' }],
      sitemaps: [],
    });
  });
});
