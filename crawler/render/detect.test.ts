import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSettingsOf } from '../../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { parseHtml } from '../parse/html.ts';
import { needsBrowser } from './detect.ts';
import { RenderPolicy } from './policy.ts';

/** What the config's defaults give the HTML parser (appliance/wiring.ts). */
const { robotsToken, maxLinks } = parseSettingsOf(DEFAULT_CONFIG);

const need = (html: string) => needsBrowser(parseHtml(html, 'http://e.org/x', robotsToken, maxLinks));
const prose = (n: number) => Array.from({ length: n }, (_, i) => `Sentence ${i} of a page that was written on the server.`).join(' ');

describe('needsBrowser', () => {
  it('says an app shell needs a browser, and why', () => {
    assert.equal(need('<title>App</title><div id="root"></div><script src="/app.js"></script>'), 'empty app root #root');
    assert.equal(need('<body><div id="__next"> <span>Loading…</span></div><script src="/_next/x.js"></script></body>'), 'empty app root #__next');
    assert.equal(need('<html ng-app="docs"><body><div ng-view></div><script src="/a.js"></script></body></html>'), 'empty app root [ng-app]');
    assert.equal(
      need(`<p>Welcome.</p><noscript>You need to enable JavaScript to run this app.</noscript><script src="/a.js"></script><p>${prose(3)}</p>`),
      'a <noscript> asks for JavaScript',
    );
    assert.match(need('<title>x</title><p>Hi</p><script>boot()</script>') ?? '', /^\d+ characters of text and 1 script$/);
    const clicky =
      `<p>${prose(10)}</p>${Array.from({ length: 8 }, (_, i) => `<span onclick="go(${i})">Item ${i}</span>`).join('')}` +
      '<a href="/one">one</a><script src="/a.js"></script>';
    assert.equal(need(clicky), '8 elements act as links through scripts, 1 are links');
  });

  it('leaves pages whose HTML is the page alone — with scripts or not', () => {
    assert.equal(need(`<div id="root"><h1>Docs</h1><p>${prose(30)}</p></div><script src="/hydrate.js"></script>`), undefined, 'a server-rendered app root');
    assert.equal(need(`<p>${prose(40)}</p><script src="/analytics.js"></script>`), undefined, 'plenty of text');
    assert.equal(need('<div id="root"></div>'), undefined, 'no script: nothing a browser would add');
    assert.equal(need(`<p>${prose(2)}</p><a href="/a">a</a><a href="/b">b</a><a href="/c">c</a><script>x()</script>`), undefined, 'short, but a page of links');
    assert.equal(
      need(`<noscript><img src="/pixel.gif"></noscript><p>${prose(3)}</p><script>track()</script><a href="/a">a</a><a href="/b">b</a><a href="/c">c</a>`),
      undefined,
      'a tracking <noscript> is no sign',
    );
    const stub =
      '<head><meta http-equiv="refresh" content="0;URL=../real/page.html"><title>Redirection</title></head>' +
      '<body><p>Redirecting to <a href="../real/page.html">../real/page.html</a>...</p>' +
      '<script>location.replace("../real/page.html" + location.search)</script></body>';
    assert.equal(need(stub), undefined, "a redirect by meta refresh, repeated by a script (rustdoc's stubs)");
  });

  it("takes the signs from the parser, which does not count noscript text as the page's", () => {
    const page = parseHtml(
      '<div id="app">  </div><noscript>Please enable JavaScript.</noscript><script></script><script src="/b.js"></script><span data-href="/x">x</span>',
      'http://e.org/',
      robotsToken,
      maxLinks,
    );
    assert.deepEqual(page.spa, { scripts: 2, appRoot: '#app', appRootText: 0, noscriptAsksJs: true, clickables: 1 });
    assert.equal(page.text, 'x');
    assert.equal(parseHtml('<p>No scripts.</p>', 'http://e.org/', robotsToken, maxLinks).spa, undefined);
  });
});

describe('RenderPolicy', () => {
  const shell = { text: '', links: [], spa: { scripts: 1, appRoot: '#root', appRootText: 0, noscriptAsksJs: false, clickables: 0 } };
  const full = { text: 'x'.repeat(2000), links: [{ url: 'http://a/', text: 'a', nofollow: false }] };
  const u = (path: string, host = 'spa.test') => new URL(`http://${host}${path}`);

  it('renders by mode, and by rule over the mode', () => {
    const p = new RenderPolicy('auto', [
      { match: 'HOST:^app\\.intra$', mode: 'always' },
      { match: 'URL:/static/', mode: 'never' },
    ]);
    assert.equal(p.upfront(u('/a', 'app.intra')), 'render.rules: HOST:^app\\.intra$');
    assert.equal(p.afterParse(u('/static/x'), shell), undefined, 'never by rule');
    assert.equal(p.afterParse(u('/x'), shell), 'empty app root #root');
    assert.equal(new RenderPolicy('always').upfront(u('/')), 'render: always');
    assert.equal(new RenderPolicy('never').afterParse(u('/'), shell), undefined);
    assert.ok(new RenderPolicy('never', [{ match: 'HOST:x', mode: 'always' }]).requiresBrowser);
    assert.ok(!new RenderPolicy('never').mayRender);
  });

  it('renders a host from the start once its pages keep needing it, and checks a sample', () => {
    const p = new RenderPolicy('auto');
    for (let i = 0; i < 3; i++) {
      assert.equal(p.upfront(u(`/p${i}`)), undefined);
      assert.ok(p.afterParse(u(`/p${i}`), shell));
      p.learn(u(`/p${i}`), shell, full);
    }
    let upfront = 0;
    for (let i = 3; i < 23; i++) if (p.upfront(u(`/q${i}`))) upfront++;
    assert.equal(upfront, 18, 'all but one page in ten');
    assert.deepEqual(p.view()[0], { host: 'spa.test', habit: 'render', pages: 23 });
    // A sample page that reads fine without a browser: the host goes back to detecting.
    assert.equal(p.afterParse(u('/r'), full), undefined);
    assert.equal(p.view()[0]!.habit, 'detect');
  });

  it('goes back to plain HTTP for a host where rendering adds nothing', () => {
    const p = new RenderPolicy('auto');
    for (let i = 0; i < 3; i++) {
      p.upfront(u(`/p${i}`));
      p.learn(u(`/p${i}`), full, full);
    }
    assert.equal(p.view()[0]!.habit, 'plain');
    let asked = 0;
    for (let i = 3; i < 23; i++) {
      p.upfront(u(`/q${i}`));
      if (p.afterParse(u(`/q${i}`), shell)) asked++;
    }
    assert.equal(asked, 2, 'only the sample pages are rendered');
  });
});
