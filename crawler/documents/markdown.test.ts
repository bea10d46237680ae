import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { markdown } from '../../testweb/documents.ts';
import { extractMarkdown } from './markdown.ts';

/** Links kept, as the crawl's default settings give them (limits.maxLinksPerPage). */
const maxLinks = DEFAULT_CONFIG.limits.maxLinksPerPage;

const options = { url: 'https://example.org/docs/sourdough.md', maxLinks, maxPages: 1 };

describe('extractMarkdown', () => {
  it('renders Markdown and reads it as an HTML page: headings, text, links resolved', () => {
    const page = extractMarkdown(markdown(), options);
    assert.equal(page.title, 'Sourdough Basics');
    assert.deepEqual(page.headings, ['Sourdough Basics', 'Hydration']);
    assert.match(page.text, /A levain feeds on rye flour; the crumb shows the fermentation\./);
    assert.deepEqual(page.links, [
      { url: 'https://example.org/bread', text: "the baker's table", nofollow: false },
      { url: 'https://example.org/notes/starter.md', text: 'notes', nofollow: false },
    ]);
    assert.deepEqual(page.document, { format: 'markdown' });
  });

  it('decodes by the Content-Type charset', () => {
    const latin1 = Buffer.from('# Caf\xe9 cr\xe8me\n', 'latin1');
    assert.equal(extractMarkdown(latin1, { ...options, contentType: 'text/markdown; charset=windows-1252' }).title, 'Café crème');
  });

  it('takes the front matter title, and the file name when there is no heading', () => {
    const front = extractMarkdown(Buffer.from('---\ntitle: "Front Title"\ndescription: About it\n---\n\nJust text.\n'), options);
    assert.equal(front.title, 'Front Title');
    assert.equal(front.description, 'About it');
    assert.equal(front.text, 'Just text.');
    assert.equal(extractMarkdown(Buffer.from('no heading here'), options).title, 'sourdough.md');
  });

  it('lets no markup in the file make it noindex, nofollow or a redirect', () => {
    const page = extractMarkdown(
      Buffer.from('<meta name="robots" content="noindex,nofollow">\n<meta http-equiv="refresh" content="0; url=/x">\n\n# Hi\n'),
      options,
    );
    assert.equal(page.noindex, false);
    assert.equal(page.nofollow, false);
    assert.equal('refresh' in page, false);
  });
});
