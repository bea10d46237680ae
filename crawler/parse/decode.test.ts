// Bytes → text: WHATWG's encoding sniffing, as browsers do it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBody } from './decode.ts';

const ascii = (s: string) => Buffer.from(s, 'latin1');

describe('decodeBody', () => {
  it('decodes windows-1252, including its 0x80–0x9F range, from the Content-Type charset', () => {
    const bytes = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x71, 0x94, 0x20, 0x80]);
    assert.equal(decodeBody(bytes, 'text/html; charset=windows-1252').text, 'café “q” €');
    assert.equal(decodeBody(bytes, 'text/html; charset=ISO-8859-1').text, 'café “q” €', 'latin1 means windows-1252 on the web');
  });

  it('sniffs <meta charset> when the header has none', () => {
    const html = Buffer.concat([Buffer.from('<meta charset="shift_jis"><p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b])]);
    assert.match(decodeBody(html, 'text/html').text, /日本/);
  });

  it('lets a BOM win over everything', () => {
    const b = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo')]);
    assert.equal(decodeBody(b, 'text/html; charset=windows-1252').text, 'héllo');
  });

  it('falls back to UTF-8 for unknown labels, replacing invalid bytes', () => {
    const r = decodeBody(Buffer.from([0x61, 0xff, 0x62]), 'text/html; charset=x-unknown');
    assert.equal(r.encoding, 'utf-8');
    assert.equal(r.text, 'a\ufffdb');
  });
});

describe('decodeBody: the real <meta> prescan (regressions of the regular expression it replaced)', () => {
  /** A page whose body holds é in windows-1252 (0xE9) and “ ” (0x93 0x94). */
  const page = (head: string) => Buffer.concat([ascii(head), Buffer.from([0x3c, 0x70, 0x3e, 0x63, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x71, 0x94])]);

  it('reads an http-equiv Content-Type pragma', () => {
    const r = decodeBody(page('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'), 'text/html');
    assert.equal(r.encoding, 'windows-1252');
    assert.match(r.text, /café “q”/);
  });

  it('reads attributes in any order and any case', () => {
    assert.equal(decodeBody(page('<META CONTENT="text/html; charset=iso-8859-1" HTTP-EQUIV="content-type">'), 'text/html').encoding, 'windows-1252');
  });

  it('skips a comment holding a charset before the real <meta charset>', () => {
    const r = decodeBody(page('<!-- <meta charset="shift_jis"> --><meta charset="windows-1252">'), 'text/html');
    assert.equal(r.encoding, 'windows-1252');
  });

  it('ignores content="…charset" without http-equiv (the standard needs the pragma)', () => {
    assert.equal(decodeBody(page('<meta content="text/html; charset=windows-1252">'), 'text/html').encoding, 'utf-8');
  });

  it('resolves labels as browsers do', () => {
    assert.equal(decodeBody(page(''), 'text/html; charset=latin1').encoding, 'windows-1252');
    assert.equal(decodeBody(page(''), 'text/html; charset=US-ASCII').encoding, 'windows-1252');
    const sjis = Buffer.concat([ascii('<p>'), Buffer.from([0x93, 0xfa, 0x96, 0x7b])]);
    const r = decodeBody(sjis, 'text/html; charset=x-sjis');
    assert.equal(r.encoding, 'shift_jis');
    assert.match(r.text, /日本/);
  });

  it('decodes UTF-16 by its byte-order mark, and drops the mark', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>héllo</p>', 'utf16le')]);
    assert.deepEqual(decodeBody(le, 'text/html; charset=windows-1252'), { text: '<p>héllo</p>', encoding: 'utf-16le' });
  });

  it('looks at the first 1,024 bytes only', () => {
    const late = page(`${' '.repeat(1100)}<meta charset="windows-1252">`);
    assert.equal(decodeBody(late, 'text/html').encoding, 'utf-8');
    const early = page(`${' '.repeat(900)}<meta charset="windows-1252">`);
    assert.equal(decodeBody(early, 'text/html').encoding, 'windows-1252');
  });

  it('reads an XML declaration\u2019s encoding (sitemaps)', () => {
    assert.equal(decodeBody(ascii('<?xml version="1.0" encoding="ISO-8859-1"?><urlset/>'), 'application/xml').encoding, 'windows-1252');
  });

  it('never throws on bytes an encoding cannot decode', () => {
    const r = decodeBody(Buffer.from([0x82, 0xa0, 0xff, 0xfe, 0x41]), 'text/html; charset=shift_jis');
    assert.equal(r.encoding, 'shift_jis');
    assert.ok(r.text.includes('A'));
  });
});
