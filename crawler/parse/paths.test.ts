// The streaming extractor (stream.ts) against cheerio's DOM walked (tree.ts): the same page, field
// by field — over the HTML the other tests are written with, and over generated hostile markup
// (tag soup, stray and missing closes, entities, comments, CDATA, a tag cut off by the end, deep
// nesting), with and without the host's selectors, template and link cap. bench/parse-paths.ts
// does the same over real corpora.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseSettingsOf } from '../../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { LANGUAGE_PAGES } from '../../testweb/languages-web.ts';
import { parsedAs, parseHtml, parseHtmlAs, type ParsedPage } from './html.ts';
import type { Extraction } from './types.ts';

/** What the config's defaults give every parse job (appliance/wiring.ts). */
const SETTINGS = parseSettingsOf(DEFAULT_CONFIG);
const { robotsToken, maxLinks } = SETTINGS;

/** Every field of both pages equal (the blocks' hashes as numbers). */
function assertSamePage(
  html: string,
  what: string,
  url = 'http://e.org/dir/page.html',
  token = robotsToken,
  links = maxLinks,
  extraction: Extraction = {},
): ParsedPage {
  const stream = parseHtmlAs('stream', html, url, token, links, extraction);
  const tree = parseHtmlAs('tree', html, url, token, links, extraction);
  const fields = new Set([...Object.keys(stream), ...Object.keys(tree)]) as Set<keyof ParsedPage>;
  for (const k of fields) {
    const [s, t] = k === 'blocks' ? [Array.from(stream.blocks ?? []), Array.from(tree.blocks ?? [])] : [stream[k], tree[k]];
    assert.deepEqual(s, t, `${what}: field ${k} differs between the stream and the tree\n--- html ---\n${html.slice(0, 2000)}`);
  }
  return tree;
}

/**
 * The HTML the other tests of the parser, the renderer's detector and the template learner are
 * written with: every string literal in them that holds a tag (a `${…}` inside one stands as a word).
 */
function fixtures(): { name: string; html: string }[] {
  const dirs = ['crawler/parse', 'crawler/render', 'crawler/template', 'crawler/documents', 'testweb'];
  const root = join(import.meta.dirname, '../..');
  const out: { name: string; html: string }[] = [];
  for (const dir of dirs) {
    for (const file of readdirSync(join(root, dir))) {
      if (!file.endsWith('.ts') || file === 'paths.test.ts') continue;
      const source = readFileSync(join(root, dir, file), 'utf8');
      let i = 0;
      for (const m of source.matchAll(/`((?:[^`\\]|\\.)*)`|'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"/g)) {
        const literal = (m[1] ?? m[2] ?? m[3] ?? '').replace(/\$\{[^}]*\}/g, 'word');
        if (/<[a-zA-Z!/][^>]*>/.test(literal) && literal.length > 10)
          out.push({ name: `${dir}/${file} #${i++}`, html: literal.replace(/\\n/g, '\n').replace(/\\(['"`])/g, '$1') });
      }
    }
  }
  for (const [path, p] of Object.entries(LANGUAGE_PAGES))
    out.push({ name: `languages ${path}`, html: `<html><head><title>${p.title}</title></head><body><h1>${p.title}</h1><p>${p.text}</p></body></html>` });
  return out;
}

/** A small seeded generator (mulberry32): the same hostile pages on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TAGS = [
  'html',
  'head',
  'body',
  'title',
  'meta',
  'link',
  'base',
  'script',
  'style',
  'noscript',
  'template',
  'textarea',
  'svg',
  'iframe',
  'object',
  'canvas',
  'nav',
  'header',
  'footer',
  'aside',
  'form',
  'button',
  'select',
  'option',
  'main',
  'div',
  'p',
  'span',
  'a',
  'area',
  'img',
  'h1',
  'h2',
  'h3',
  'h4',
  'br',
  'hr',
  'li',
  'ul',
  'ol',
  'table',
  'tr',
  'td',
  'th',
  'pre',
  'code',
  'b',
  'section',
  'article',
  'DIV',
  'TiTle',
  'A',
  'xmp',
  'plaintext',
  'math',
];
const ATTRIBUTES = [
  'href="/x?a=1&amp;b=2"',
  'href=""',
  'href="#frag"',
  "href='rel/path page'",
  'href="http://[bad"',
  'href=javascript:void(0)',
  'href="mailto:a@b.c"',
  'href',
  'rel="nofollow noopener"',
  'rel=canonical',
  'rel="CANONICAL"',
  'hidden',
  'aria-hidden="true"',
  'aria-hidden=false',
  'role=navigation',
  'role="banner"',
  'role=main',
  'data-trawl-ignore',
  'data-trawl-ignore=""',
  'id=app',
  'id="root"',
  'id=other',
  'ng-app',
  'data-reactroot=""',
  'onclick="go()"',
  '@click="x"',
  'routerlink=/r',
  'data-href="/d"',
  'class="a b"',
  'class=c',
  'lang="fr "',
  'lang=""',
  'name=robots content="noindex, nofollow"',
  'name="TrawlBot" content=none',
  'name=description content="Desc &amp; more"',
  'name=keywords content=" k1,  k2 "',
  'property="og:description" content=og',
  'http-equiv=refresh content="0; url=\'next.html\'"',
  'http-equiv="Refresh" content="30;URL=slow"',
  'alt="An image"',
  'alt=""',
  'title="Link title"',
  'href="/dup" href="/second"',
  'src=i.png',
];
const TEXTS = [
  'Hello',
  ' world ',
  'Please enable JavaScript to run this app.',
  '&amp;',
  '&nbsp;',
  '&lt;b&gt;',
  '&#x41;&#66;',
  '&bogus;',
  '& ',
  'caf&eacute;',
  '\u00a0\u2003',
  '\n\n  ',
  'x'.repeat(60),
  'Prev Up Home Next',
  '\u0000nul',
  '&#0;',
  '&#x110000;',
  'ünïcödé 漢字',
  'a<b',
  '<<',
  '<>',
  '</>',
  '< p>',
  '&',
  '--',
];
const OTHERS = [
  '<!-- a comment -->',
  '<!---->',
  '<!-- unterminated',
  '<![CDATA[cdata <p>text</p>]]>',
  '<!doctype html>',
  '<?xml version="1.0"?>',
  '<!weird>',
  '<div/>',
  '<br/>',
  '</br>',
  '</p>',
  '<a href="/cut',
  '<p class="unterminated',
  '</',
  '<',
  '<img alt="x"/>',
];

function hostilePage(rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const open: string[] = [];
  let s = '';
  const n = 20 + Math.floor(rnd() * 200);
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.35) {
      const tag = pick(TAGS);
      const attrs = Array.from({ length: Math.floor(rnd() * 3) }, () => pick(ATTRIBUTES)).join(' ');
      s += `<${tag}${attrs ? ` ${attrs}` : ''}>`;
      open.push(tag);
    } else if (r < 0.55) {
      // Mostly the open element's close, sometimes any other (a stray close).
      const tag = rnd() < 0.8 ? open.pop() : pick(TAGS);
      if (tag) s += `</${tag}>`;
    } else if (r < 0.9) s += pick(TEXTS);
    else s += pick(OTHERS);
  }
  return s;
}

/** Extractions a host may give: streaming selectors, a template, a link cap. */
const SELECTORS = ['div.a', '.c, nav a', 'div > p', '[role=main] span', 'section :not(p)', 'ul li:is(.a, .c)', '*', 'body > div b', '#root a[href^="/x"]'];

describe('the streaming extractor gives the DOM walk’s page', () => {
  const all = fixtures();
  it(`on the HTML the parser's, detector's and template's tests are written with (${all.length} fixtures)`, () => {
    assert.ok(all.length > 60, `found ${all.length} fixtures`);
    for (const f of all) {
      assertSamePage(f.html, f.name);
      assertSamePage(f.html, `${f.name}, selectors`, undefined, 'trawlbot', 3, { exclude: SELECTORS.join(', ') });
    }
  });

  it('on 2,000 generated hostile pages, with selectors, a template and a link cap', () => {
    const rnd = random(23);
    let withLinks = 0;
    let withText = 0;
    for (let i = 0; i < 2000; i++) {
      const html = hostilePage(rnd);
      const page = assertSamePage(html, `hostile #${i}`);
      if (page.links.length) withLinks++;
      if (page.text) withText++;
      const exclude = SELECTORS[i % SELECTORS.length]!;
      const template = page.blocks?.length ? Uint32Array.from(page.blocks.filter((_, j) => j % 2 === 0)).sort() : undefined;
      assertSamePage(html, `hostile #${i}, ${exclude}`, 'http://e.org/a%20b/', i % 3 ? 'trawlbot' : 'TrawlBot', 1 + (i % 5), {
        exclude,
        ...(template ? { template } : {}),
      });
    }
    // (Most generated pages have text, a quarter links — a <script>, <textarea> or <plaintext> left open
    // swallows the rest: the comparison is not over empty pages.)
    assert.ok(withLinks > 400 && withText > 1200, `${withLinks} pages with links, ${withText} with text`);
  });

  it('where a run of text is split by a comment, CDATA, a doctype or a processing instruction (the app root counts its text by runs)', () => {
    for (const split of ['<!-- c -->', '<![CDATA[ x ]]>', '<!doctype html>', '<?php x ?>', '<!weird>']) {
      const page = assertSamePage(
        `<script></script><div id="app"> a ${split} b <span> c </span>&amp; ${split}</div><noscript>enable ${split} JavaScript</noscript>`,
        split,
      );
      assert.ok(page.spa && page.spa.appRootText > 0);
    }
  });

  it('on deep nesting (40,000 open elements) and long runs of text in pieces', () => {
    assertSamePage(`${'<div><span>'.repeat(20_000)}deep &amp; deeper${'</span></div>'.repeat(10)}`, 'deep');
    assertSamePage(`<p>${'a&amp;b&lt;'.repeat(20_000)}</p><a href="/x">${'&#x41;'.repeat(5000)}</a>`, 'entities');
  });
});

describe('which path a page takes', () => {
  it('streams unless the selectors look at siblings, children, text or positions', () => {
    for (const s of [undefined, '', ...SELECTORS, 'div:not(.a > p)', 'a:where([hidden])']) assert.equal(parsedAs(s), 'stream', String(s));
    for (const s of [
      'h1 + p',
      'h1 ~ p',
      'li:first-child',
      'div:has(p)',
      'p:empty',
      'p:contains(Cookie)',
      'li:nth-child(2)',
      'div:not(:has(a))',
      '> p',
      'svg|a',
      '[[bad',
    ])
      assert.equal(parsedAs(s), 'tree', s);
  });

  it('a page of a host whose selectors need the tree is parsed into one, and excludes what they name', () => {
    const html = '<body><h2>Cookies</h2><p>We use cookies to track you.</p><p>The real content of the page is this sentence here.</p></body>';
    const p = parseHtml(html, 'http://e.org/', robotsToken, maxLinks, { exclude: 'h2 + p' });
    assert.equal(p.text, 'Cookies\nThe real content of the page is this sentence here.');
    assert.throws(() => parseHtmlAs('stream', html, 'http://e.org/', robotsToken, maxLinks, { exclude: 'h2 + p' }), /needs the tree/);
  });

  it('an invalid selector fails as cheerio fails, on the tree', () => {
    assert.equal(parsedAs('[[bad'), 'tree');
    assert.throws(() => parseHtml('<p>x</p>', 'http://e.org/', robotsToken, maxLinks, { exclude: '[[bad' }));
  });
});
