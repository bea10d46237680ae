// Progressive enhancement: the page works without this script; with it, the crawl status line
// stays live (polling /api/status) while the crawl runs.
(function () {
  'use strict';
  var line = document.getElementById('crawl-status');
  if (!line || !window.fetch) return;
  var delay = 1500;
  function tick() {
    if (document.hidden) return setTimeout(tick, delay);
    fetch('/api/status', { headers: { accept: 'application/json' } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) {
        if (s && typeof s.summary === 'string') {
          line.textContent = s.summary;
          line.dataset.running = String(Boolean(s.crawl && s.crawl.running));
        }
      })
      .catch(function () { /* server restarting: try again at the next tick */ })
      .then(function () { setTimeout(tick, delay); });
  }
  setTimeout(tick, delay);
})();
