/*
 * Trawl's search widget: a search box with results as you type, for a page of any site.
 *
 *   <script src="https://trawl.example/widget.js" defer></script>
 *   <trawl-search placeholder="Search the docs"></trawl-search>
 *   (or <div data-trawl-search data-placeholder="Search the docs">fallback content</div>)
 *
 * Plain JavaScript, no build step, no dependency. It asks the Trawl it was loaded from (the origin
 * of this script, or the `origin` attribute) — /api/search, and /api/suggest when that Trawl has it
 * — which must list the page's origin in server.corsOrigins. It draws in a shadow root: the page's
 * CSS cannot reach in, and styles it only through the --trawl-* custom properties (or ::part()).
 * Attributes (on a div, with data-): origin, placeholder, label, size (results, 1–10), filter
 * (added to every query, e.g. "site:docs.example.org"), shortcut ("none": no "/" key).
 */
(() => {
  // Without these the page keeps what it has: a <div data-trawl-search>'s own content.
  if (!window.customElements || !window.fetch || !window.AbortController || !window.DOMParser) return;
  if (customElements.get('trawl-search')) return; // loaded twice

  var script = document.currentScript;
  var LOADED_FROM = script?.src ? new URL(script.src, location.href).origin : location.origin;
  var DEBOUNCE_MS = 150;
  var MIN_CHARS = 2;
  var SUGGESTIONS = 3;
  // The tab's random session id for the search log (sessionStorage, never a cookie): a tab's
  // searches typed on are logged as one, and a click on a result is reported with its search.
  var session = '';
  try {
    session = sessionStorage.getItem('trawl-session') || '';
    if (!/^[A-Za-z0-9_-]{8,64}$/.test(session)) {
      var bytes = new Uint8Array(16);
      crypto.getRandomValues(bytes);
      session = Array.prototype.map.call(bytes, (b) => (b + 256).toString(16).slice(1)).join('');
      sessionStorage.setItem('trawl-session', session);
    }
  } catch (_) {
    session = '';
  }
  var widgets = new WeakMap();
  var mounted = [];
  var serial = 0;

  var CSS = [
    // The host's own display, visibility and opacity are the widget's: a page rule, even one
    // with !important, cannot hide it (important rules of the shadow tree win); `hidden` can.
    ':host { display: block !important; visibility: visible !important; opacity: 1 !important; }',
    ':host([hidden]) { display: none !important; }',
    '[hidden] { display: none !important; }',
    // Nothing inherits from the page (color, font, letter-spacing, pointer-events…) but the --trawl-* properties.
    '.root { all: initial; display: block; position: relative; font: var(--trawl-font, 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, ' +
      'sans-serif); color: var(--trawl-fg, #1b1f24); }',
    '.root *, .root *::before, .root *::after { box-sizing: border-box; }',
    'input { all: unset; display: block; width: 100%; box-sizing: border-box; padding: .55em .8em; font: inherit; color: var(--trawl-fg, #1b1f24); ' +
      'background: var(--trawl-bg, #fff); border: 1px solid var(--trawl-border, #8c959f); border-radius: var(--trawl-radius, 8px); cursor: text; }',
    'input::placeholder { color: var(--trawl-muted, #57606a); opacity: 1; }',
    'input:focus-visible { outline: 3px solid var(--trawl-accent, #0b57d0); outline-offset: 1px; }',
    '.panel { position: absolute; z-index: var(--trawl-z-index, 2147483000); top: calc(100% + 4px); left: 0; right: 0; min-width: 16em; ' +
      'max-height: var(--trawl-max-height, 70vh); overflow: auto; padding: 4px 0; background: var(--trawl-bg, #fff); ' +
      'border: 1px solid var(--trawl-border, #d0d7de); border-radius: var(--trawl-radius, 8px); box-shadow: 0 8px 24px rgba(0, 0, 0, .15); }',
    'ul { list-style: none; margin: 0; padding: 0; }',
    'li { display: block; padding: .45em .8em; cursor: pointer; border-left: 3px solid transparent; }',
    'li:hover { background: var(--trawl-hover-bg, #f6f8fa); }',
    'li[aria-selected="true"] { background: var(--trawl-active-bg, #eef3fd); border-left-color: var(--trawl-accent, #0b57d0); }',
    '.title { display: block; font-weight: 600; color: var(--trawl-accent, #0b57d0); text-decoration: none; overflow-wrap: anywhere; }',
    'li[aria-selected="true"] .title { text-decoration: underline; }',
    '.url { display: block; font-size: .8em; color: var(--trawl-muted, #57606a); overflow-wrap: anywhere; }',
    '.snippet { display: block; margin-top: .15em; font-size: .9em; overflow-wrap: anywhere; }',
    'mark { background: var(--trawl-mark, #fff3b0); color: inherit; padding: 0 .1em; border-radius: .15em; }',
    '.badge { font-size: .7em; font-weight: 600; padding: 0 .35em; margin-right: .3em; border-radius: .25em; background: #eef1f5; color: #444; ' +
      'vertical-align: .1em; }',
    '.suggestion b { font-weight: 600; }',
    '.note { margin: 0; padding: .45em .8em; font-size: .9em; color: var(--trawl-muted, #57606a); }',
    '.more { display: block; padding: .5em .8em; border-top: 1px solid var(--trawl-border, #d0d7de); font-size: .9em; ' +
      'color: var(--trawl-accent, #0b57d0); text-decoration: none; }',
    '.more:hover, .more:focus-visible { text-decoration: underline; }',
    '.hidden-text { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }',
  ].join('\n');

  var sheet = null;
  function style(root) {
    // A constructed style sheet is not an inline style: a page whose CSP forbids those still shows it.
    if ('adoptedStyleSheets' in ShadowRoot.prototype && window.CSSStyleSheet) {
      try {
        if (!sheet) {
          sheet = new CSSStyleSheet();
          sheet.replaceSync(CSS);
        }
        root.adoptedStyleSheets = [sheet];
        return;
      } catch (_) {
        /* an older browser: the <style> below */
      }
    }
    root.appendChild(el('style', {}, CSS));
  }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) if (Object.hasOwn(attrs, k)) e.setAttribute(k, attrs[k]);
    if (text) e.textContent = text;
    return e;
  }

  /** An attribute of the widget: `name`, or `data-name` (on a div). */
  function option(host, name) {
    var v = host.getAttribute(name);
    return v === null ? host.getAttribute(`data-${name}`) : v;
  }

  function originOf(host) {
    var v = option(host, 'origin');
    if (!v) return LOADED_FROM;
    try {
      var u = new URL(v, location.href);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : LOADED_FROM;
    } catch (_) {
      return LOADED_FROM;
    }
  }

  function sizeOf(host) {
    var n = parseInt(option(host, 'size') || '5', 10);
    return n >= 1 && n <= 10 ? n : 5;
  }

  /** The snippet (HTML from the API: escaped text, terms in <mark>), kept as text and <mark> only — never inserted as markup. */
  function snippetNodes(html) {
    var out = document.createDocumentFragment();
    var body = new DOMParser().parseFromString(`<!doctype html><body>${html}`, 'text/html').body;
    (function walk(node) {
      node.childNodes.forEach((n) => {
        if (n.nodeType === 3) out.appendChild(document.createTextNode(n.data));
        else if (n.nodeType !== 1 || /^(script|style|template|noscript|iframe|object)$/i.test(n.localName)) return;
        else if (n.localName === 'mark') out.appendChild(el('mark', { part: 'mark' }, n.textContent));
        else walk(n); // any other element: its text alone
      });
    })(body);
    return out;
  }

  /** Only http(s) URLs are opened: a `javascript:` URL from a crawled page must never run. */
  function hrefOf(hit) {
    if (!/^https?:\/\//i.test(hit.url)) return null;
    // (The section the query found: the page's address with its fragment, given by the server.)
    if (hit.section && typeof hit.section.url === 'string' && /^https?:\/\//i.test(hit.section.url)) return hit.section.url;
    return hit.type === 'pdf' && hit.page ? `${hit.url.replace(/#.*$/, '')}#page=${hit.page}` : hit.url;
  }

  /** /api/suggest's completions, whatever their shape: strings, or objects with text, query or value. */
  function completions(body, q) {
    var list = Array.isArray(body) ? body : body && (body.suggestions || body.completions);
    if (!Array.isArray(list)) return [];
    return list
      .map((s) => (typeof s === 'string' ? s : s && (s.text || s.query || s.value || s.term)))
      .filter((s) => typeof s === 'string' && s && s.toLowerCase() !== q.toLowerCase())
      .slice(0, SUGGESTIONS);
  }

  function mount(host) {
    if (widgets.has(host)) return;
    var root;
    try {
      root = host.attachShadow({ mode: 'open' });
    } catch (_) {
      return;
    } // a host that cannot have one
    serial++;
    var id = `trawl-${serial}`;
    var w = { host: host, items: [], active: -1, timer: 0, controller: null, suggest: true, shown: '' };
    widgets.set(host, w);
    mounted.push(w);
    style(root);
    var box = el('div', { class: 'root', role: 'search', part: 'root' });
    w.input = el('input', {
      type: 'search',
      role: 'combobox',
      'aria-autocomplete': 'list',
      'aria-expanded': 'false',
      'aria-controls': `${id}-list`,
      autocomplete: 'off',
      spellcheck: 'false',
      enterkeyhint: 'search',
      maxlength: '500',
      part: 'input',
    });
    w.panel = el('div', { class: 'panel', part: 'panel', hidden: '' });
    w.list = el('ul', { role: 'listbox', id: `${id}-list`, 'aria-label': 'Search results' });
    w.note = el('p', { class: 'note', role: 'status', 'aria-live': 'polite' });
    w.more = el('a', { class: 'more', part: 'more' });
    w.id = id;
    w.panel.append(w.list, w.note, w.more);
    box.append(w.input, w.panel);
    root.appendChild(box);
    labels(w);

    w.input.addEventListener('input', () => {
      schedule(w);
    });
    w.input.addEventListener('keydown', (e) => {
      keydown(w, e);
    });
    w.input.addEventListener('focus', () => {
      if (w.shown && w.shown === w.input.value.trim()) open(w);
    });
    // A click in the panel must not take the focus from the box (it would close the panel first).
    w.panel.addEventListener('mousedown', (e) => {
      e.preventDefault();
    });
    w.list.addEventListener('click', (e) => {
      var li = e.target.closest('li');
      if (!li) return;
      var item = w.items[Number(li.dataset.index)];
      if (e.target.closest('a')) {
        // The link itself: the browser opens it (new tab with a modifier too); the log hears of it.
        if (item?.kind === 'result') reportClick(w, item);
        return;
      }
      choose(w, item, e);
    });
    root.addEventListener('focusout', (e) => {
      if (!e.relatedTarget || !root.contains(e.relatedTarget)) close(w);
    });
  }

  function labels(w) {
    w.input.setAttribute('aria-label', option(w.host, 'label') || 'Search');
    w.input.setAttribute('placeholder', option(w.host, 'placeholder') || 'Search');
  }

  function schedule(w) {
    clearTimeout(w.timer);
    var q = w.input.value.trim();
    if (q.length < MIN_CHARS) {
      cancel(w);
      w.shown = '';
      close(w);
      return;
    }
    w.timer = setTimeout(() => {
      run(w, q);
    }, DEBOUNCE_MS);
  }

  function cancel(w) {
    clearTimeout(w.timer);
    if (w.controller) w.controller.abort();
    w.controller = null;
  }

  /** Asks for results (and completions) of `q`; an earlier request still running is cancelled. */
  function run(w, q) {
    cancel(w);
    var controller = (w.controller = new AbortController());
    var origin = originOf(w.host);
    var full = withFilter(w, q);
    var get = (path) => fetch(origin + path, { signal: controller.signal, headers: { accept: 'application/json' } });
    var results = get(`/api/search?q=${encodeURIComponent(full)}&size=${sizeOf(w.host)}&from=widget${session ? `&session=${session}` : ''}`).then((res) =>
      res
        .json()
        .catch(() => ({}))
        .then((body) => ({ status: res.status, body: body })),
    );
    // Completions when this Trawl has them; one "no such endpoint" and they are not asked again.
    var suggested = !w.suggest
      ? Promise.resolve([])
      : get(`/api/suggest?q=${encodeURIComponent(q)}`)
          .then((res) => {
            if (res.status === 404 || res.status === 405) w.suggest = false;
            return res.ok ? res.json().then((b) => completions(b, q)) : [];
          })
          .catch((e) => {
            if (e && e.name === 'AbortError') throw e;
            return [];
          });
    Promise.all([results, suggested]).then(
      (answers) => {
        if (controller !== w.controller) return; // a later keystroke's answer wins
        w.controller = null;
        show(w, q, answers[0], answers[1]);
      },
      (e) => {
        if (e && e.name === 'AbortError') return;
        if (controller !== w.controller) return;
        w.controller = null;
        show(w, q, { status: 0, body: {} }, []);
      },
    );
  }

  /** The query as sent: the words typed and the widget's filter (site:…, lang:…, type:…). */
  function withFilter(w, q) {
    var filter = (option(w.host, 'filter') || '').trim();
    return filter ? `${q} ${filter}` : q;
  }

  /** Trawl's own search page for `q`, with every result. */
  function searchPage(w, q) {
    return `${originOf(w.host)}/?q=${encodeURIComponent(withFilter(w, q))}`;
  }

  function show(w, q, answer, suggestions) {
    var body = answer.body || {};
    var hits = answer.status === 200 && Array.isArray(body.hits) ? body.hits : [];
    var items = suggestions.map((s) => ({ kind: 'suggestion', text: s }));
    if (!hits.length && typeof body.suggestion === 'string') items.push({ kind: 'suggestion', text: body.suggestion, didYouMean: true });
    hits.forEach((h, i) => {
      items.push({ kind: 'result', hit: h, href: hrefOf(h), position: i + 1 });
    });
    w.searchId = typeof body.searchId === 'string' ? body.searchId : '';
    w.items = items;
    w.active = -1;
    w.shown = q;
    w.list.replaceChildren.apply(
      w.list,
      items.map((item, i) => optionOf(w, item, i)),
    );
    w.input.removeAttribute('aria-activedescendant');
    var total = typeof body.total === 'number' ? body.total : hits.length;
    w.note.className = 'note';
    if (answer.status === 200) {
      w.note.textContent = hits.length ? (total === 1 ? '1 result' : `${total.toLocaleString()} results`) : `No results for “${q}”`;
      if (hits.length) w.note.className = 'note hidden-text'; // said to screen readers; the list shows it
    } else if (answer.status === 401) w.note.textContent = 'This search needs a login: open it on its own page.';
    else if (answer.status === 429) w.note.textContent = 'Too many searches at once: wait a moment.';
    else if (answer.status === 400 && typeof body.error === 'string') w.note.textContent = body.error;
    else w.note.textContent = 'The search is not available right now.';
    w.more.href = searchPage(w, q);
    w.more.textContent = total > hits.length ? `More results (${total.toLocaleString()} in all)` : 'More results';
    w.more.hidden = !hits.length && answer.status !== 401;
    open(w);
  }

  function optionOf(w, item, i) {
    var li = el('li', { role: 'option', id: `${w.id}-opt-${i}`, 'aria-selected': 'false', part: 'option' });
    li.dataset.index = String(i);
    if (item.kind === 'suggestion') {
      li.className = 'suggestion';
      li.append(item.didYouMean ? 'Did you mean ' : 'Search for ', el('b', {}, item.text), item.didYouMean ? '?' : '');
      return li;
    }
    var h = item.hit;
    var title = item.href ? el('a', { class: 'title', href: item.href, tabindex: '-1', part: 'title' }) : el('span', { class: 'title', part: 'title' });
    if (h.type && h.type !== 'html') title.appendChild(el('span', { class: 'badge' }, String(h.type).toUpperCase()));
    title.appendChild(document.createTextNode(String(h.title || h.url)));
    var snippet = el('span', { class: 'snippet', part: 'snippet' });
    snippet.appendChild(snippetNodes(String(h.snippet || '')));
    li.append(title, el('span', { class: 'url' }, String(h.url).replace(/^https?:\/\//i, '')), snippet);
    return li;
  }

  function open(w) {
    if (!w.items.length && !w.note.textContent) return;
    w.panel.hidden = false;
    w.input.setAttribute('aria-expanded', String(w.items.length > 0));
  }

  function close(w) {
    w.panel.hidden = true;
    w.input.setAttribute('aria-expanded', 'false');
    select(w, -1);
  }

  function select(w, i) {
    var lis = w.list.children;
    if (w.active >= 0 && lis[w.active]) lis[w.active].setAttribute('aria-selected', 'false');
    w.active = i;
    if (i < 0 || !lis[i]) {
      w.input.removeAttribute('aria-activedescendant');
      return;
    }
    lis[i].setAttribute('aria-selected', 'true');
    w.input.setAttribute('aria-activedescendant', lis[i].id);
    lis[i].scrollIntoView({ block: 'nearest' });
  }

  function keydown(w, e) {
    var isOpen = !w.panel.hidden;
    var n = w.items.length;
    if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && n) {
      e.preventDefault();
      if (!isOpen) open(w);
      var down = e.key === 'ArrowDown';
      select(w, w.active < 0 ? (down ? 0 : n - 1) : (w.active + (down ? 1 : n - 1)) % n);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (isOpen && w.active >= 0) choose(w, w.items[w.active], e);
      else if (w.input.value.trim()) go(searchPage(w, w.input.value.trim()), e);
    } else if (e.key === 'Escape') {
      if (isOpen) {
        e.preventDefault();
        close(w);
      } else if (w.input.value) {
        e.preventDefault();
        w.input.value = '';
        cancel(w);
        w.shown = '';
        w.items = [];
      }
    } else if (e.key === 'Tab') close(w);
  }

  function choose(w, item, e) {
    if (!item) return;
    if (item.kind === 'suggestion') {
      w.input.value = item.text;
      w.input.focus();
      run(w, item.text);
    } else if (item.href) {
      reportClick(w, item);
      go(item.href, e);
    }
  }

  /** Tells the search log which result was chosen (a beacon: it outlives the page it leaves). */
  function reportClick(w, item) {
    if (!w.searchId || !navigator.sendBeacon) return;
    var event = { type: 'click', searchId: w.searchId, position: item.position, url: item.hit.url };
    navigator.sendBeacon(`${originOf(w.host)}/api/analytics/events`, JSON.stringify(event));
  }

  /** Opens a URL here, or in a new tab with Ctrl or ⌘. */
  function go(href, e) {
    if (e && (e.ctrlKey || e.metaKey)) window.open(href, '_blank', 'noopener');
    else location.assign(href);
  }

  // "/" focuses the first widget of the page, unless one is typing somewhere.
  document.addEventListener('keydown', (e) => {
    if (e.key !== '/' || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.composedPath ? e.composedPath()[0] : e.target;
    if (t && (t.isContentEditable || /^(input|textarea|select)$/i.test(t.localName || ''))) return;
    var w = mounted.find((m) => m.host.isConnected && option(m.host, 'shortcut') !== 'none' && m.host.getClientRects().length);
    if (!w) return;
    e.preventDefault();
    w.input.focus();
    w.input.select();
  });

  customElements.define(
    'trawl-search',
    class extends HTMLElement {
      static get observedAttributes() {
        return ['placeholder', 'label'];
      }
      connectedCallback() {
        mount(this);
      }
      disconnectedCallback() {
        var w = widgets.get(this);
        if (w) {
          cancel(w);
          close(w);
        }
      }
      attributeChangedCallback() {
        var w = widgets.get(this);
        if (w) labels(w);
      }
    },
  );

  /** Mounts the widget on every <div data-trawl-search> under `root` (the page's, at load). */
  function upgrade(root) {
    (root || document).querySelectorAll('[data-trawl-search]').forEach(mount);
  }
  window.TrawlSearch = { upgrade: upgrade };
  if (document.readyState === 'loading')
    document.addEventListener('DOMContentLoaded', () => {
      upgrade();
    });
  else upgrade();
})();
