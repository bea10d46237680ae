import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { walkXml } from './xml.ts';

function names(xml: string): string[] {
  const out: string[] = [];
  walkXml(xml, { open: (name, attrs) => out.push([name, ...Object.keys(attrs).filter((k) => !k.startsWith('xmlns'))].join(' ')) });
  return out;
}

describe('walkXml', () => {
  it('names elements and attributes by the canonical prefix of their namespace, whatever the file binds', () => {
    assert.deepEqual(
      names(
        '<q:document xmlns:q="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:z="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><q:p z:id="1" q:val="x" plain="y"/></q:document>',
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
