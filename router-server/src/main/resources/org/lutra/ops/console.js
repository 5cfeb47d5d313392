// Lutra's placement console: reads /api/console every few seconds and draws it. Read-only.
// Every value from the router (keys, table names) is put in the page as text (textContent), never as HTML.
'use strict';

const REFRESH_MS = 2000;
const COLORS = ['#3b6fd8', '#e0793b', '#2e9e5b', '#b7409a', '#8c6d31', '#17a2b8', '#c0392b', '#6c5ce7'];
const charts = {};

function color(i) { return COLORS[i % COLORS.length]; }

function number(n) {
  if (n === null || n === undefined) return '–';
  return Number(n).toLocaleString('en-US');
}

function percent(x) {
  return x === null || x === undefined || isNaN(x) ? '–' : (100 * x).toFixed(1) + ' %';
}

function bytes(n) {
  if (n === null || n === undefined || n < 0) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return n.toFixed(i === 0 ? 0 : 1) + ' ' + units[i];
}

function cell(row, text, cls) {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function fill(tableId, rows, render, empty) {
  const body = document.querySelector('#' + tableId + ' tbody');
  body.replaceChildren();
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = cell(tr, empty, 'muted');
    td.colSpan = document.querySelectorAll('#' + tableId + ' thead th').length;
    body.appendChild(tr);
    return;
  }
  for (const r of rows) {
    const tr = document.createElement('tr');
    render(tr, r);
    body.appendChild(tr);
  }
}

function chart(id, type, options) {
  if (!charts[id]) {
    charts[id] = new Chart(document.getElementById(id), {
      type: type,
      data: { labels: [], datasets: [] },
      options: Object.assign({ animation: false, responsive: true, maintainAspectRatio: false,
        plugins: { legend: { position: 'bottom' } } }, options || {})
    });
  }
  return charts[id];
}

/** Per-second rates between consecutive history points. */
function rates(history, pick) {
  const out = [];
  for (let i = 1; i < history.length; i++) {
    const dt = (history[i].t - history[i - 1].t) / 1000;
    out.push(dt > 0 ? Math.max(0, (pick(history[i]) - pick(history[i - 1])) / dt) : 0);
  }
  return out;
}

function timeLabels(history) {
  return history.slice(1).map(p => new Date(p.t).toLocaleTimeString('en-GB'));
}

function drawLoad(data) {
  const h = data.history;
  const c = chart('load-chart', 'line', { scales: { y: { beginAtZero: true, title: { display: true, text: 'sub-queries/s' } } },
    elements: { point: { radius: 0 } } });
  c.data.labels = timeLabels(h);
  c.data.datasets = data.partitions.map((p, i) => ({
    label: p.name, borderColor: color(i), backgroundColor: color(i), borderWidth: 2, tension: 0,
    data: rates(h, point => point.sub_queries[i] || 0)
  }));
  c.update();
}

function drawRows(data) {
  const c = chart('rows-chart', 'bar', { scales: { y: { beginAtZero: true } }, plugins: { legend: { display: false } } });
  c.data.labels = data.partitions.map(p => p.name + ' (' + p.backend + ')');
  c.data.datasets = [{ label: 'rows', data: data.partitions.map(p => p.rows || 0), backgroundColor: data.partitions.map((p, i) => color(i)) }];
  c.update();
}

function drawShare(data) {
  const h = data.history;
  const c = chart('share-chart', 'line', { scales: { y: { beginAtZero: true, max: 100, title: { display: true, text: '%' } } },
    elements: { point: { radius: 0 } } });
  const multi = rates(h, p => p.multi), single = rates(h, p => p.single);
  const two = rates(h, p => p.two_phase), one = rates(h, p => p.one_phase);
  const share = (a, b) => a.map((x, i) => (x + b[i]) > 0 ? 100 * x / (x + b[i]) : null);
  c.data.labels = timeLabels(h);
  c.data.datasets = [
    { label: 'statements on several partitions', data: share(multi, single), borderColor: color(0), backgroundColor: color(0), spanGaps: true },
    { label: 'transactions committed in two phases', data: share(two, one), borderColor: color(1), backgroundColor: color(1), spanGaps: true }
  ];
  c.update();
}

function drawHits(data) {
  const c = chart('hit-chart', 'bar', { indexAxis: 'y', scales: { x: { beginAtZero: true, max: 100 } }, plugins: { legend: { display: false } } });
  c.data.labels = data.lookups.map(l => l.table);
  c.data.datasets = [{ label: 'hit ratio (%)', data: data.lookups.map(l => l.hit_ratio === null ? 0 : 100 * l.hit_ratio),
    backgroundColor: data.lookups.map((l, i) => color(i + 2)) }];
  c.update();
}

function show(data) {
  const r = data.router;
  document.getElementById('router').textContent = r.version + ' · database ' + r.database + ' · router ' + r.name
    + ' · lookup tables ' + r.lookups + ' · up ' + r.uptime_seconds + ' s';
  document.getElementById('sessions').textContent = number(r.sessions);
  const t = data.totals;
  const statements = t.statements_single_partition + t.statements_multi_partition;
  document.getElementById('share-single').textContent = statements ? percent(t.statements_single_partition / statements) : '–';
  const committed = t.transactions_one_phase + t.transactions_two_phase;
  document.getElementById('share-2pc').textContent = committed ? percent(t.transactions_two_phase / committed) : '–';
  let hits = 0, looked = 0;
  for (const l of data.lookups) { hits += l.hits; looked += l.hits + l.misses; }
  document.getElementById('hit-ratio').textContent = looked ? percent(hits / looked) : '–';

  fill('partitions', data.partitions, (tr, p) => {
    cell(tr, p.name); cell(tr, p.backend); cell(tr, p.database); cell(tr, number(p.rows), 'num');
    cell(tr, p.reachable === null ? 'checking' : p.reachable ? 'yes' : 'NO', p.reachable === false ? 'no' : p.reachable ? 'yes' : 'muted');
    cell(tr, number(p.sub_queries), 'num'); cell(tr, p.pool_active + ' / ' + p.pool_size, 'num');
  }, 'no partitions');
  fill('lookups', data.lookups, (tr, l) => {
    cell(tr, l.table); cell(tr, number(l.keys), 'num'); cell(tr, l.representation); cell(tr, bytes(l.bytes), 'num');
    cell(tr, number(l.hits), 'num'); cell(tr, number(l.misses), 'num'); cell(tr, percent(l.hit_ratio), 'num');
    cell(tr, number(l.fallbacks), 'num'); cell(tr, number(l.broadcasts), 'num');
  }, 'no lookup tables');
  fill('hot-keys', data.hot_keys, (tr, k) => {
    cell(tr, k.table); cell(tr, String(k.rank), 'num'); cell(tr, k.key); cell(tr, number(k.count), 'num');
  }, 'no keys routed lately');
  fill('moves', data.moves, (tr, m) => {
    cell(tr, String(m.id), 'num'); cell(tr, m.table); cell(tr, m.state);
    const td = cell(tr, '');
    const bar = document.createElement('progress');
    bar.max = Math.max(1, m.keys_total); bar.value = m.keys_done;
    td.appendChild(bar);
    td.appendChild(document.createTextNode(' ' + number(m.keys_done) + ' / ' + number(m.keys_total) + ' keys'));
    cell(tr, number(m.rows_moved), 'num'); cell(tr, m.router);
  }, 'no moves');

  drawLoad(data);
  drawRows(data);
  drawShare(data);
  drawHits(data);
}

async function refresh() {
  const status = document.getElementById('status');
  try {
    const response = await fetch('/api/console', { cache: 'no-store' });
    const data = response.ok ? await response.json() : null;
    if (data && data.partitions) {
      show(data);
      // from the router's last health checks (every few seconds), as /health/ready answers
      const down = data.partitions.filter(p => p.reachable === false).map(p => p.name);
      const ready = down.length === 0 && !data.router.lookups.startsWith('warming');
      status.textContent = ready ? 'ready' : down.length ? 'not ready: ' + down.join(', ') + ' unreachable' : 'not ready: warming';
      status.className = 'status ' + (ready ? 'ready' : 'not-ready');
    } else {
      status.textContent = response.ok ? 'starting' : 'HTTP ' + response.status;
      status.className = 'status not-ready';
    }
  } catch (e) {
    status.textContent = 'router unreachable';
    status.className = 'status not-ready';
  }
  setTimeout(refresh, REFRESH_MS);
}

document.addEventListener('DOMContentLoaded', refresh);
