import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skipping, walkXml } from './xml.ts';

function names(xml: string): string[] {
  const out: string[] = [];
  walkXml(xml, { open: (name, attrs) => out.push([name, ...Object.keys(attrs).filter((k) => !k.startsWith('xmlns'))].join(' ')) });
  return out;
}

describe('walkXml', () => {
  it('names elements and attributes by the canonical prefix of their namespace, whatever the file binds', () => {
    assert.deepEqual(
      names(
        '<q:document xmlns:q="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
          'xmlns:z="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
          '<q:p z:id="1" q:val="x" plain="y"/></q:document>',
      ),
      ['w:document', 'w:p r:id w:val plain'],
    );
  });

  it('maps a known default namespace, and ISO strict OOXML to the transitional prefixes', () => {
    assert.deepEqual(names('<workbook xmlns="http://purl.oclc.org/ooxml/spreadsheetml/main"><sheet name="a"/></workbook>'), ['x:workbook', 'x:sheet name']);
  });

  it('keeps unknown and undeclared prefixes as written, and scopes declarations to their element', () => {
    assert.deepEqual(names('<a:x xmlns:a="urn:other"><b:y/></a:x><a:z/>'), ['a:x', 'b:y', 'a:z']);
    assert.deepEqual(names('<r xmlns:t="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><t:p/></r><t:p/>'), ['r', 'text:p', 't:p']);
  });

  it('expands no DTD entity (no "billion laughs")', () => {
    const texts: string[] = [];
    const bomb = `<!DOCTYPE x [<!ENTITY a "${'ha'.repeat(10)}"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><x>&b;&amp;</x>`;
    walkXml(bomb, { text: (t) => texts.push(t) });
    assert.ok(texts.join('').length < 20, texts.join(''));
  });
});

describe('skipping', () => {
  /** The events `skipping(['del'])` passes on, as `<a>`, text, `</a>`. */
  function passed(xml: string): string[] {
    const out: string[] = [];
    const record = { open: (name: string) => out.push(`<${name}>`), text: (t: string) => out.push(t), close: (name: string) => out.push(`</${name}>`) };
    walkXml(xml, skipping(new Set(['del']), record));
    return out;
  }

  it('passes on nothing of a skipped element, nor of what it holds, skipped elements inside it included; all that follows it', () => {
    assert.deepEqual(passed('<a>1<del>2<b>3</b><del>4</del>5</del>6<b>7</b></a>'), ['<a>', '1', '6', '<b>', '7', '</b>', '</a>']);
  });

  it('resumes after a skipped element left open, once its parent closes; a stray end tag skips nothing', () => {
    assert.deepEqual(passed('<a><del>1</a><b>2</b>'), ['<a>', '</a>', '<b>', '2', '</b>']);
    assert.deepEqual(passed('<a></del>1<del>2</del>3</a>'), ['<a>', '1', '3', '</a>']);
  });
});
