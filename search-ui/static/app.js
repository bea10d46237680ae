// Progressive enhancement: every page works without this script. With it:
// - the crawl status line stays live (polling /api/status);
// - the search page shows results as you type (debounced; the server renders them, as for a
//   submitted form; a newer keystroke aborts the request before) and keeps the URL shareable;
// - suggestions as you type under the search box (/api/suggest), an accessible listbox;
// - keys: "/" focuses the search box, ↓ / ↑ move between the results;
// - the dashboard (/status) is live (server-sent events) and its admin forms call the JSON API;
// - the search log (analytics.enabled): searches carry the tab's random session id (sessionStorage,
//   never a cookie), and a click on a result is reported with navigator.sendBeacon — the result
//   links stay plain links to the pages.
(() => {
  var line = document.getElementById('crawl-status');
  var live = document.getElementById('live');
  var box = document.getElementById('q');

  // The tab's session id: random, kept for the tab only, sent with each search (the server logs a
  // tab's searches typed on as one). Taken out of the address bar: a shared link carries none.
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
  var sessionField = document.getElementById('q-session');
  if (sessionField && session) {
    sessionField.value = session;
    sessionField.disabled = false;
  }
  if (/[?&]session=/.test(location.search) && window.URLSearchParams) {
    var shown = new URLSearchParams(location.search);
    shown.delete('session');
    history.replaceState(null, '', `${location.pathname}${shown.toString() ? `?${shown}` : ''}${location.hash}`);
  }

  // A click on a result (any button: a new tab counts), reported to the search log.
  var reportClick = (e) => {
    var a = e.target.closest?.('ol.results a');
    var item = a?.closest('li[data-position]');
    var list = a?.closest('ol[data-search-id]');
    if (!item || !list || !navigator.sendBeacon) return;
    var event = { type: 'click', searchId: list.dataset.searchId, position: Number(item.dataset.position), url: item.dataset.url };
    navigator.sendBeacon('/api/analytics/events', JSON.stringify(event));
  };
  document.addEventListener('click', reportClick);
  document.addEventListener('auxclick', reportClick);

  // The status line: from the dashboard's events when there, else by polling.
  function setLine(summary, running) {
    if (!line || typeof summary !== 'string') return;
    line.textContent = summary;
    line.dataset.running = String(Boolean(running));
  }
  if (live && window.EventSource) {
    var events = new EventSource('/api/events');
    events.addEventListener('status', (e) => {
      var s;
      try {
        s = JSON.parse(e.data);
      } catch (_) {
        return;
      }
      live.innerHTML = s.html; // rendered and escaped by the server (status-page.ts)
      setLine(s.summary, s.running);
    });
    window.addEventListener('pagehide', () => {
      events.close();
    });
  } else if (line && window.fetch) {
    var delay = 1500;
    var tick = () => {
      if (document.hidden) return setTimeout(tick, delay);
      fetch('/api/status', { headers: { accept: 'application/json' } })
        .then((r) => (r.ok ? r.json() : null))
        .then((s) => {
          if (s) setLine(s.summary, s.crawl?.running);
        })
        .catch(() => {
          /* server restarting: try again at the next tick */
        })
        .then(() => {
          setTimeout(tick, delay);
        });
    };
    setTimeout(tick, delay);
  }

  // Instant results, on the search page only. A keystroke's request aborts the one before it
  // (AbortController): only the latest answer is shown, and the server is not kept busy for nothing.
  var main = document.getElementById('main');
  if (box && main && location.pathname === '/' && window.fetch && window.DOMParser && window.AbortController) {
    var timer = 0;
    var pending = null;
    box.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        var q = box.value.trim();
        if (q.length < 2) return;
        var url = `/?q=${encodeURIComponent(q)}`;
        if (pending) pending.abort();
        var mine = (pending = new AbortController());
        fetch(session ? `${url}&session=${session}` : url, { headers: { accept: 'text/html' }, signal: mine.signal })
          .then((r) => r.text())
          .then((text) => {
            if (mine !== pending) return; // a later keystroke's answer wins
            var doc = new DOMParser().parseFromString(text, 'text/html');
            var fresh = doc.getElementById('main');
            if (!fresh) return;
            main.innerHTML = fresh.innerHTML; // server-rendered, escaped (pages.ts)
            document.title = doc.title;
            history.replaceState(null, '', url);
          })
          .catch(() => {
            /* aborted, or offline: the form still submits */
          });
      }, 200);
    });
  }

  // Suggestions as you type (/api/suggest): a listbox under the box. ↓ / ↑ choose (the box keeps
  // the focus; aria-activedescendant names the option), Enter searches for the one chosen, Esc
  // closes, a click picks one. The box stays a search box: the form works as it did.
  if (box?.form && window.fetch && window.AbortController) {
    var list = document.createElement('ul');
    list.id = 'q-suggestions';
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', 'Suggestions');
    list.hidden = true;
    box.form.appendChild(list);
    box.setAttribute('aria-autocomplete', 'list');
    box.setAttribute('aria-controls', list.id);
    var suggestTimer = 0;
    var asking = null;
    var active = -1;
    var options = () => Array.prototype.slice.call(list.querySelectorAll('[role=option]'));
    var choose = (i) => {
      var all = options();
      active = i;
      all.forEach((o, k) => {
        o.setAttribute('aria-selected', String(k === i));
      });
      if (i >= 0 && all[i]) box.setAttribute('aria-activedescendant', all[i].id);
      else box.removeAttribute('aria-activedescendant');
    };
    var close = () => {
      list.hidden = true;
      list.textContent = '';
      choose(-1);
    };
    var searchFor = (text) => {
      box.value = text;
      close();
      if (box.form.requestSubmit) box.form.requestSubmit();
      else box.form.submit();
    };
    var show = (suggestions) => {
      list.textContent = '';
      suggestions.forEach((s, i) => {
        var li = document.createElement('li');
        li.id = `q-suggestion-${i}`;
        li.setAttribute('role', 'option');
        li.setAttribute('aria-selected', 'false');
        li.textContent = s; // text, never HTML
        list.appendChild(li);
      });
      list.hidden = suggestions.length === 0 || document.activeElement !== box;
      choose(-1);
    };
    box.addEventListener('input', () => {
      clearTimeout(suggestTimer);
      if (asking) asking.abort();
      var q = box.value;
      if (q.trim().length < 2 || /\s$/.test(q)) return close();
      suggestTimer = setTimeout(() => {
        var mine = (asking = new AbortController());
        fetch(`/api/suggest?q=${encodeURIComponent(q.trim())}`, { headers: { accept: 'application/json' }, signal: mine.signal })
          .then((r) => (r.ok ? r.json() : { suggestions: [] }))
          .then((body) => {
            if (mine !== asking) return;
            var words = (body.suggestions || []).filter((s) => s !== q.trim());
            show(words);
          })
          .catch(() => {
            /* aborted, or offline: no suggestions */
          });
      }, 120);
    });
    box.addEventListener('keydown', (e) => {
      if (list.hidden) return;
      var all = options();
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault(); // (not the results' keys: the list is open)
        var next = active + (e.key === 'ArrowDown' ? 1 : -1);
        choose(next < -1 ? all.length - 1 : next >= all.length ? -1 : next);
      } else if (e.key === 'Enter' && active >= 0 && all[active]) {
        e.preventDefault();
        searchFor(all[active].textContent);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        close();
      }
    });
    // A click on an option: mousedown, before the box loses the focus (which closes the list).
    list.addEventListener('mousedown', (e) => {
      var o = e.target.closest?.('[role=option]');
      e.preventDefault();
      if (o) searchFor(o.textContent);
    });
    box.addEventListener('blur', close);
  }

  // Keys.
  function results() {
    return Array.prototype.slice.call(document.querySelectorAll('ol.results a.result-title'));
  }
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    var typing = t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable);
    if (e.key === '/' && !typing && box) {
      e.preventDefault();
      box.focus();
      box.select();
      return;
    }
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    var links = results();
    if (!links.length) return;
    var at = links.indexOf(document.activeElement);
    if (t === box && e.key === 'ArrowDown') at = -1;
    else if (at < 0) return;
    e.preventDefault();
    var next = at + (e.key === 'ArrowDown' ? 1 : -1);
    if (next < 0) {
      if (box) box.focus();
      return;
    }
    links[Math.min(next, links.length - 1)].focus();
  });

  // Admin forms (/status): the token stays in this tab (sessionStorage).
  var token = document.getElementById('admin-token');
  var out = document.getElementById('admin-result');
  if (token && out && window.fetch) {
    token.value = sessionStorage.getItem('trawl-admin-token') || '';
    token.addEventListener('change', () => {
      sessionStorage.setItem('trawl-admin-token', token.value);
    });
    var call = (method, path, body) => {
      out.textContent = 'Working…';
      var headers = { authorization: `Bearer ${token.value}`, accept: 'application/json' };
      if (body) headers['content-type'] = 'application/json';
      fetch(path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined })
        .then((r) => r.json().then((j) => ({ ok: r.ok, status: r.status, body: j })))
        .then((r) => {
          out.textContent = r.ok ? `Done: ${JSON.stringify(r.body)}` : `Refused (${r.status}): ${r.body.error}`;
        })
        .catch((err) => {
          out.textContent = `Failed: ${err.message}`;
        });
    };
    var target = (value) => {
      var v = value.trim();
      if (!v) return { all: true };
      return /^https?:\/\//i.test(v) ? { url: v } : { host: v };
    };
    document.addEventListener('click', (e) => {
      var b = e.target.closest?.('button[data-admin]');
      if (!b) return;
      call('POST', `/api/${b.dataset.admin}`);
    });
    document.addEventListener('submit', (e) => {
      var form = e.target;
      var kind = form.dataset?.admin;
      if (!kind) return;
      e.preventDefault();
      if (kind === 'seeds') {
        var urls = document.getElementById('admin-seeds').value.split(/\s+/).filter(Boolean);
        call('POST', '/api/seeds', { urls: urls });
      } else if (kind === 'recrawl') {
        call('POST', '/api/recrawl', target(document.getElementById('admin-recrawl').value));
      } else if (kind === 'remove') {
        var t = target(document.getElementById('admin-remove').value);
        if (t.all) return;
        call('DELETE', `/api/documents?${t.url ? `url=${encodeURIComponent(t.url)}` : `host=${encodeURIComponent(t.host)}`}`);
      }
    });
  }
})();
