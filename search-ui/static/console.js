// The search console's chart: searches and searches clicked a day, drawn by uPlot (served by this
// server: /static/uplot.js) from the figures the page carries (#days-data). Without JavaScript the
// table under it says the same.
(() => {
  const box = document.getElementById('days-chart');
  const data = document.getElementById('days-data');
  if (!box || !data || typeof uPlot === 'undefined') return;
  const figures = JSON.parse(data.textContent);
  if (!figures.days.length) return;
  const times = figures.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const width = () => Math.max(320, Math.min(960, box.clientWidth || 960));
  const plot = new uPlot(
    {
      width: width(),
      height: 220,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true } },
      series: [{}, { label: 'Searches', stroke: '#2563eb', width: 2, fill: 'rgba(37, 99, 235, 0.08)' }, { label: 'Clicked', stroke: '#16a34a', width: 2 }],
      axes: [{}, { size: 50 }],
    },
    [times, figures.searches, figures.clicked],
    box,
  );
  box.dataset.drawn = String(figures.days.length);
  window.addEventListener('resize', () => plot.setSize({ width: width(), height: 220 }));
})();
