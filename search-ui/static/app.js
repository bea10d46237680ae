// Progressive enhancement: every page works without this script. With it:
// - the crawl status line stays live (polling /api/status);
// - the search page shows results as you type (debounced; the server renders them, as for a
//   submitted form) and keeps the URL shareable;
// - keys: "/" focuses the search box, ↓ / ↑ move between the results;
// - the dashboard (/status) is live (server-sent events) and its admin forms call the JSON API.
(function () {
  'use strict';

  var line = document.getElementById('crawl-status');
  var live = document.getElementById('live');
  var box = document.getElementById('q');

  // The status line: from the dashboard's events when there, else by polling.
  function setLine(summary, running) {
    if (!line || typeof summary !== 'string') return;
    line.textContent = summary;
    line.dataset.running = String(Boolean(running));
  }
  if (live && window.EventSource) {
    var events = new EventSource('/api/events');
    events.addEventListener('status', function (e) {
      var s;
      try { s = JSON.parse(e.data); } catch (_) { return; }
      live.innerHTML = s.html; // rendered and escaped by the server (status-page.ts)
      setLine(s.summary, s.running);
    });
    window.addEventListener('pagehide', function () { events.close(); });
  } else if (line && window.fetch) {
    var delay = 1500;
    var tick = function () {
      if (document.hidden) return setTimeout(tick, delay);
      fetch('/api/status', { headers: { accept: 'application/json' } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (s) { if (s) setLine(s.summary, s.crawl && s.crawl.running); })
        .catch(function () { /* server restarting: try again at the next tick */ })
        .then(function () { setTimeout(tick, delay); });
    };
    setTimeout(tick, delay);
  }

  // Instant results, on the search page only.
  var main = document.getElementById('main');
  if (box && main && location.pathname === '/' && window.fetch && window.DOMParser) {
    var timer = 0;
    var asked = 0;
    box.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var q = box.value.trim();
        if (q.length < 2) return;
        var url = '/?q=' + encodeURIComponent(q);
        var mine = ++asked;
        fetch(url, { headers: { accept: 'text/html' } })
          .then(function (r) { return r.text(); })
          .then(function (text) {
            if (mine !== asked) return; // a later keystroke's answer wins
            var doc = new DOMParser().parseFromString(text, 'text/html');
            var fresh = doc.getElementById('main');
            if (!fresh) return;
            main.innerHTML = fresh.innerHTML; // server-rendered, escaped (pages.ts)
            document.title = doc.title;
            history.replaceState(null, '', url);
          })
          .catch(function () { /* offline: the form still submits */ });
      }, 250);
    });
  }

  // Keys.
  function results() { return Array.prototype.slice.call(document.querySelectorAll('ol.results a.result-title')); }
  document.addEventListener('keydown', function (e) {
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
    if (next < 0) { if (box) box.focus(); return; }
    links[Math.min(next, links.length - 1)].focus();
  });

  // Admin forms (/status): the token stays in this tab (sessionStorage).
  var token = document.getElementById('admin-token');
  var out = document.getElementById('admin-result');
  if (token && out && window.fetch) {
    token.value = sessionStorage.getItem('trawl-admin-token') || '';
    token.addEventListener('change', function () { sessionStorage.setItem('trawl-admin-token', token.value); });
    var call = function (method, path, body) {
      out.textContent = 'Working…';
      var headers = { authorization: 'Bearer ' + token.value, accept: 'application/json' };
      if (body) headers['content-type'] = 'application/json';
      fetch(path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined })
        .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, status: r.status, body: j }; }); })
        .then(function (r) { out.textContent = r.ok ? 'Done: ' + JSON.stringify(r.body) : 'Refused (' + r.status + '): ' + r.body.error; })
        .catch(function (err) { out.textContent = 'Failed: ' + err.message; });
    };
    var target = function (value) {
      var v = value.trim();
      if (!v) return { all: true };
      return /^https?:\/\//i.test(v) ? { url: v } : { host: v };
    };
    document.addEventListener('click', function (e) {
      var b = e.target.closest && e.target.closest('button[data-admin]');
      if (!b) return;
      call('POST', '/api/' + b.dataset.admin);
    });
    document.addEventListener('submit', function (e) {
      var form = e.target;
      var kind = form.dataset && form.dataset.admin;
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
        call('DELETE', '/api/documents?' + (t.url ? 'url=' + encodeURIComponent(t.url) : 'host=' + encodeURIComponent(t.host)));
      }
    });
  }
})();
