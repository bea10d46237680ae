import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileName, isoDate, LinkSink, TextSink } from './page.ts';

describe('TextSink', () => {
  it('squashes each page and records where it starts; an empty page starts where the next would', () => {
    const sink = new TextSink(1000);
    for (const page of ['  one \t two  \n\n\n three ', '', 'four']) {
      sink.push(page);
      sink.endPage();
    }
    assert.deepEqual(sink.finish(true), { text: 'one two\nthree\nfour', pageOffsets: [0, 13, 14] });
  });

  it('keeps at most its budget and counts the rest', () => {
    const sink = new TextSink(5);
    sink.push('abc');
    sink.push('defg');
    sink.push('h');
    assert.equal(sink.full, true);
    assert.equal(sink.cut, 3);
    assert.deepEqual(sink.finish(false), { text: 'abcde' });
  });
});

describe('LinkSink', () => {
  it('resolves links against the document, keeps only http(s), counts those past the cap', () => {
    const links = new LinkSink('https://example.org/docs/a.pdf', 2);
    for (const href of [
      'b.html',
      'mailto:x@example.org',
      'javascript:alert(1)',
      '#top',
      'ftp://example.org/f',
      'http://other.org/',
      'https://third.org/',
      undefined,
    ])
      links.add(href, ' the  text ');
    assert.deepEqual(links.links, [
      { url: 'https://example.org/docs/b.html', text: 'the text', nofollow: false },
      { url: 'http://other.org/', text: 'the text', nofollow: false },
    ]);
    assert.equal(links.cut, 1);
  });
});

describe('isoDate and fileName', () => {
  it('reads ISO 8601 and W3C dates, zoned or not (UTC), and nothing else', () => {
    assert.equal(isoDate('2022-08-09T10:11:12+0100'), '2022-08-09T09:11:12.000Z');
    assert.equal(isoDate('2022-08-09T10:11:12.123456789'), '2022-08-09T10:11:12.123Z');
    assert.equal(isoDate('2022-08-09'), '2022-08-09T00:00:00.000Z');
    assert.equal(isoDate('yesterday'), undefined);
    assert.equal(isoDate('2022-13-45'), undefined);
  });

  it('takes the decoded last path segment, else the host', () => {
    assert.equal(fileName('https://example.org/a/Caf%C3%A9%20menu.pdf'), 'Café menu.pdf');
    assert.equal(fileName('https://example.org/bad%E0.pdf'), 'bad%E0.pdf');
    assert.equal(fileName('https://example.org/'), 'example.org');
  });
});
