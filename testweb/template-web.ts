/**
 * A fake handbook site made of one template: every page has the same menu (a block of links, and
 * a line of text above it) and the same sidebar (a heading and two paragraphs of text, after the
 * content in the source, as Sphinx puts it), around a section of its own. Pages are reachable only
 * through the menu. Beside them, one guide in two versions of the docs and a print view of it:
 * near-duplicates once the chrome is out of their text.
 *
 *   /                     the home page: the template around a welcome
 *   /p/N                  N < TEMPLATE_WEB.pages: a section of its own
 *   /15/guide, /16/guide  the same guide, saying "15" or "16"; linked from the menu
 *   /print/guide          the guide alone, without the template, with a "printed from" line; linked from /15/guide
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const TEMPLATE_WEB = { pages: 30 } as const;

/** Text every page of the template carries: none of it may end up in a page's stored text or snippet. */
export const TEMPLATE_TEXT = {
  menuLine: 'The Example Handbook for volunteers and their friends',
  sidebarHeading: 'About this handbook',
  sidebar: [
    'This handbook is written by the Example volunteers and published under a free licence.',
    'Corrections are welcome: write to the editorial board of the handbook by mail.',
  ],
} as const;

const TOPICS = ['gardening', 'beekeeping', 'carpentry', 'pottery', 'weaving', 'baking', 'cycling', 'sailing', 'knitting', 'brewing'];
const WORDS = (
  'soil seed water light season tool wood clay wheel thread loom flour oven yeast chain wheel rope sail knot wind ' +
  'hive honey comb wax frame glaze kiln grain malt hops barrel spoke gear tyre pattern needle yarn stitch'
).split(' ');

/** Section N's text: a few sentences of its own, different from every other section's. */
export function sectionText(n: number): string {
  const topic = TOPICS[n % TOPICS.length]!;
  const out: string[] = [];
  let x = n * 7919 + 17;
  for (let s = 0; s < 6; s++) {
    const words = Array.from({ length: 9 }, () => WORDS[(x = (x * 31 + 7) % 1009) % WORDS.length]);
    out.push(`In ${topic} part ${n}, step ${s} is about ${words.join(' ')}.`);
  }
  return out.join(' ');
}

/** The guide that exists in two versions (and a print view): a long page where only the version number differs. */
export function guideText(version: number): string {
  let x = 4242;
  const word = () => WORDS[(x = (x * 31 + 7) % 1009) % WORDS.length]!;
  return Array.from(
    { length: 30 },
    (_, s) =>
      `Chapter ${s} of the release ${version} migration guide: copy the ${word()} ${word()} settings, ` +
      `check the ${word()} logs for ${word()} and ${word()}, then restart the ${word()} service.`,
  ).join(' ');
}

function page(title: string, body: string): string {
  const menu = [
    ['/', 'Home'],
    ...Array.from({ length: TEMPLATE_WEB.pages }, (_, i) => [`/p/${i}`, `Section ${i}`]),
    ['/15/guide', 'Guide (15)'],
    ['/16/guide', 'Guide (16)'],
  ];
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<div class="menu"><p>${TEMPLATE_TEXT.menuLine}</p><ul>${menu.map(([href, text]) => `<li><a href="${href}">${text}</a></li>`).join('')}</ul></div>
<div class="content"><h1>${title}</h1>${body}</div>
<div class="side"><h3>${TEMPLATE_TEXT.sidebarHeading}</h3>${TEMPLATE_TEXT.sidebar.map((p) => `<p>${p}</p>`).join('')}</div>
</body></html>`;
}

export function templateWebHandler(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const send = (status: number, html: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  };
  let m: RegExpExecArray | null;
  if (path === '/') send(200, page('Welcome', '<p>Welcome to the handbook: pick a section from the menu.</p>'));
  else if ((m = /^\/p\/(\d+)$/.exec(path)) && Number(m[1]) < TEMPLATE_WEB.pages) send(200, page(`Section ${m[1]}`, `<p>${sectionText(Number(m[1]))}</p>`));
  else if ((m = /^\/(15|16)\/guide$/.exec(path)))
    send(200, page(`Migration guide (${m[1]})`, `<p>${guideText(Number(m[1]))}</p>${m[1] === '15' ? '<p><a href="/print/guide">Print</a></p>' : ''}`));
  else if (path === '/print/guide')
    send(
      200,
      '<!doctype html><html><head><title>Migration guide (print)</title></head>' +
        `<body><p>Printed from the Example Handbook.</p><p>${guideText(15)}</p></body></html>`,
    );
  else send(404, 'not found');
}
