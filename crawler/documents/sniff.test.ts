import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { docx, lyingDocx, manyPagesPdf, markdown, odp, ods, odt, pptx, xlsx, zipBombDocx, zipFile } from '../../testweb/documents.ts';
import { mayBeDocument, sniffFormat } from './sniff.ts';

const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const url = (name: string) => `https://example.org/files/${name}`;

describe('sniffFormat', () => {
  let pdf: Buffer;
  before(async () => {
    pdf = await manyPagesPdf(1);
  });

  it('knows each document format by its content, whatever the Content-Type says', async () => {
    const cases: [Buffer, string][] = [
      [pdf, 'pdf'],
      [docx(), 'docx'],
      [pptx(), 'pptx'],
      [xlsx(), 'xlsx'],
      [odt(), 'odt'],
      [odp(), 'odp'],
      [ods(), 'ods'],
    ];
    for (const [bytes, format] of cases) {
      for (const type of ['application/octet-stream', 'text/html; charset=utf-8', DOCX_TYPE, '']) {
        assert.equal(await sniffFormat(type, bytes, url('download')), format, `${format} sent as ${type || '(none)'}`);
      }
    }
  });

  it('finds a PDF header after junk in the first KB', async () => {
    assert.equal(await sniffFormat('text/plain', Buffer.concat([Buffer.from('\n\r junk '), pdf]), url('x')), 'pdf');
  });

  it('takes Markdown from its types, and from a .md or .markdown URL sent as text/plain', async () => {
    const md = markdown();
    assert.equal(await sniffFormat('text/markdown; charset=utf-8', md, url('readme')), 'markdown');
    assert.equal(await sniffFormat('text/x-markdown', md, url('readme')), 'markdown');
    assert.equal(await sniffFormat('text/plain', md, url('README.md')), 'markdown');
    assert.equal(await sniffFormat('text/plain', md, url('notes.markdown?raw=1')), 'markdown');
    assert.equal(await sniffFormat('text/plain', md, url('notes.txt')), 'text');
  });

  it('says html for HTML, text for other plain text, and nothing for other types', async () => {
    const html = Buffer.from('<!doctype html><title>x</title>');
    assert.equal(await sniffFormat('text/html', html, url('a')), 'html');
    assert.equal(await sniffFormat('application/xhtml+xml', html, url('a')), 'html');
    assert.equal(await sniffFormat('text/plain', Buffer.from('hello'), url('a.pdf')), 'text');
    assert.equal(await sniffFormat('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]), url('a.png')), undefined);
    assert.equal(await sniffFormat('application/zip', zipFile([{ name: 'a.txt', data: 'x' }]), url('a.zip')), undefined);
  });

  it('believes a document Content-Type (or a generic one with a document extension) when there is no magic, so that the refusal is recorded', async () => {
    assert.equal(await sniffFormat('application/pdf', Buffer.from('not a pdf'), url('a')), 'pdf');
    assert.equal(await sniffFormat('application/octet-stream', Buffer.from('no magic'), url('report.xlsx')), 'xlsx');
    assert.equal(await sniffFormat('application/octet-stream', Buffer.from('no magic'), url('report')), undefined);
  });

  it('takes an HTML page sent with a document Content-Type (a login or error page) for HTML', async () => {
    assert.equal(await sniffFormat('application/pdf', Buffer.from('\ufeff  <!DOCTYPE html><p>Please log in'), url('a.pdf')), 'html');
    assert.equal(await sniffFormat(DOCX_TYPE, Buffer.from('<html><body>Not found'), url('a.docx')), 'html');
  });

  it('does not look into a zip bomb, and leaves its refusal to the extractor', async () => {
    const t0 = performance.now();
    assert.equal(await sniffFormat(DOCX_TYPE, zipBombDocx(), url('bomb.docx')), 'docx');
    assert.equal(await sniffFormat('application/octet-stream', zipBombDocx(), url('bomb')), undefined);
    assert.equal(await sniffFormat('application/octet-stream', lyingDocx(), url('liar')), 'docx', 'its small parts are readable');
    assert.ok(performance.now() - t0 < 1000);
  });
});

describe('mayBeDocument', () => {
  it('is true for PDF or zip magic, a document Content-Type, or a document extension', () => {
    const none = new Uint8Array(0);
    assert.equal(mayBeDocument('text/html', Buffer.from('%PDF-1.7'), url('a')), true);
    assert.equal(mayBeDocument('text/html', Buffer.from('PK\x03\x04'), url('a')), true);
    assert.equal(mayBeDocument(`${DOCX_TYPE}; x=y`, none, url('a')), true);
    assert.equal(mayBeDocument('text/markdown', none, url('a')), true);
    assert.equal(mayBeDocument('application/octet-stream', none, url('A.PDF')), true);
    assert.equal(mayBeDocument('text/plain', none, url('readme.md')), true);
    assert.equal(mayBeDocument('text/html', Buffer.from('<html>'), url('page.html')), false);
    assert.equal(mayBeDocument('text/plain', none, 'not a url'), false);
  });
});
