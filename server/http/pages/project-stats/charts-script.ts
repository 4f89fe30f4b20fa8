/**
 * The statistics page's chart script, served as an asset (CSP `script-src 'self'`): draws one
 * uPlot chart per series from the page's JSON data block as it comes near the viewport, shows a
 * tooltip under the cursor, and applies the filters when they change (the copy buttons are
 * copy-script.ts's). The page works without it. `uplotSrc`: uPlot's asset (`/assets/…`), loaded by
 * this script when the first chart is about to be seen, not by the page.
 * Plain ES2019 for every current browser; no build step.
 */
export const chartsScript = (uplotSrc: string) => `(function () {
  'use strict';
  // Beside this script, wherever it is served from (BASE_PATH, a proxy's prefix): the page's own
  // addresses are rewritten for the base path, a string in a script is not.
  var UPLOT_SRC = new URL(${JSON.stringify(uplotSrc.slice(uplotSrc.lastIndexOf('/') + 1))}, document.currentScript.src).href;
  var forms = document.querySelectorAll('form[data-autosubmit]');
  Array.prototype.forEach.call(forms, function (form) {
    // Only what the range needs goes in the address: a preset drops the custom days (they would
    // linger, stale), and "all branches" its empty value.
    var trim = function () {
      var custom = form.elements.range && form.elements.range.value === 'custom';
      Array.prototype.forEach.call(form.elements, function (field) {
        field.disabled = (!custom && (field.name === 'from' || field.name === 'to')) ||
          (field.name === 'branch' && field.value === '');
      });
    };
    var apply = function () { trim(); form.submit(); };
    // A change made with the keyboard (an arrow on a closed select changes it at once) waits for
    // Enter or the button; one made with the pointer applies at once.
    var keyboard = false;
    form.addEventListener('pointerdown', function () { keyboard = false; });
    form.addEventListener('keydown', function (event) {
      keyboard = true;
      if (event.key === 'Enter' && event.target.tagName === 'SELECT') {
        event.preventDefault();
        apply();
      }
    });
    form.addEventListener('submit', trim);
    // Fields disabled for a submission come back enabled when the page is restored from history.
    window.addEventListener('pageshow', function () {
      Array.prototype.forEach.call(form.elements, function (field) { field.disabled = false; });
    });
    form.addEventListener('change', function (event) {
      if (keyboard) return;
      var custom = form.elements.range && form.elements.range.value === 'custom';
      if (event.target.type === 'date' && !custom) return;
      if (event.target.name === 'range' && custom) return;
      apply();
    });
  });
  // Sortable tables: a column's button sorts by its cells' data-value (again: the other way).
  Array.prototype.forEach.call(document.querySelectorAll('table[data-sortable]'), function (table) {
    var heads = table.querySelectorAll('thead th');
    Array.prototype.forEach.call(heads, function (th, column) {
      var button = th.querySelector('button.sort');
      if (!button) return;
      button.addEventListener('click', function () {
        var numeric = button.getAttribute('data-sort') === 'number';
        // Numbers sort largest first, names A to Z; the same column again flips the order.
        var first = numeric ? 'descending' : 'ascending';
        var current = th.getAttribute('aria-sort');
        var next = current === first ? (numeric ? 'ascending' : 'descending') : first;
        var down = next === 'descending';
        Array.prototype.forEach.call(heads, function (other) { other.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', next);
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var value = function (row) {
          var v = row.cells[column].getAttribute('data-value');
          return numeric ? Number(v) : v;
        };
        rows.sort(function (a, b) {
          var x = value(a);
          var y = value(b);
          var order = x < y ? -1 : x > y ? 1 : 0;
          return down ? -order : order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });

  var block = document.getElementById('chart-data');
  if (!block) return;
  var data = JSON.parse(block.textContent);
  var css = getComputedStyle(document.documentElement);
  var color = function (name) { return css.getPropertyValue(name).trim(); };
  var time = function (seconds) {
    return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  };
  var compactFormat = new Intl.NumberFormat('en', { notation: 'compact', maximumSignificantDigits: 3 });
  var compact = function (value) { return compactFormat.format(value); };
  var number = function (value) {
    return value == null ? '–' : Number(value).toLocaleString('en', { maximumSignificantDigits: 6 });
  };

  /**
   * The tooltip beside the cursor, kept inside the chart's card (and so the viewport): right of
   * the cursor, or left of it near the right edge; above it, or below it near the top. Its width
   * is capped by the stylesheet, so it wraps instead of running off a phone's screen.
   */
  function place(u, box) {
    var card = u.over.closest('.chart-card') || u.over;
    var bounds = card.getBoundingClientRect();
    var over = u.over.getBoundingClientRect();
    box.style.maxWidth = Math.max(120, Math.min(bounds.width - 16, 352)) + 'px';
    var width = box.offsetWidth;
    var height = box.offsetHeight;
    // In the over layer's coordinates: the card's inner edges.
    var min = bounds.left + 8 - over.left;
    var max = bounds.right - 8 - over.left - width;
    var x = u.cursor.left + 12;
    if (x > max) x = u.cursor.left - 12 - width;
    box.style.left = Math.max(min, Math.min(x, max)) + 'px';
    var y = u.cursor.top - height - 8;
    if (y < 0) y = u.cursor.top + 16;
    box.style.top = y + 'px';
  }

  function tooltip(columns) {
    var box;
    return {
      hooks: {
        init: function (u) {
          box = document.createElement('div');
          box.className = 'chart-tooltip';
          box.setAttribute('role', 'status');
          box.hidden = true;
          u.over.appendChild(box);
        },
        setCursor: function (u) {
          var i = u.cursor.idx;
          if (i == null) { box.hidden = true; return; }
          var count = columns[5][i];
          box.textContent = time(columns[0][i]) + ' · p50 ' + number(columns[1][i]) +
            ' · p95 ' + number(columns[2][i]) + ' · min ' + number(columns[3][i]) +
            ' · max ' + number(columns[4][i]) + ' · ' + count + (count === 1 ? ' point' : ' points') +
            ' · last ' + number(columns[6][i]) +
            (columns[7][i] ? ' · branch ' + columns[7][i] : '') +
            (columns[8][i] ? ' · commit ' + columns[8][i] : '');
          box.hidden = false;
          place(u, box);
        },
      },
    };
  }

  // Shorter charts on a phone (stats-edges-css.ts has the same breakpoint).
  var small = window.matchMedia('(max-width: 40rem)');
  var chartHeight = function () { return small.matches ? 150 : 220; };

  // Releases and deploys on every chart, alerts and change points on their key's: a thin line
  // at the mark's time, kept in place on zoom and resize, with its own tooltip (title and label).
  function markers(key) {
    var own = (data.marks || []).filter(function (m) { return m[2] === null || m[2] === key; });
    var nodes = [];
    return {
      hooks: {
        init: function (u) {
          own.forEach(function (m) {
            var node = document.createElement(m[5] ? 'a' : 'span');
            if (m[5]) node.href = m[5];
            else {
              node.tabIndex = 0;
              node.setAttribute('role', 'img');
            }
            node.className = 'chart-mark mark-' + m[1];
            var said = m[3] + ' · ' + time(m[0]) + (m[4] ? ' · commit ' + m[4] : '');
            node.title = said;
            node.setAttribute('aria-label', said);
            node.setAttribute('data-at', String(m[0]));
            u.over.appendChild(node);
            nodes.push([node, m[0]]);
          });
        },
        draw: function (u) {
          nodes.forEach(function (n) {
            var x = u.valToPos(n[1], 'x');
            n[0].hidden = !(x >= 0 && x <= u.over.clientWidth);
            n[0].style.left = x + 'px';
          });
        },
      },
    };
  }

  var charts = [];
  function draw(chart, node, width) {
    var columns = [[], [], [], [], [], [], [], [], []];
    chart.buckets.forEach(function (b) { b.forEach(function (v, i) { columns[i].push(v); }); });
    var axis = { stroke: color('--muted'), grid: { stroke: color('--border'), width: 1 }, ticks: { stroke: color('--border') } };
    var options = {
      width: width || 600,
      height: chartHeight(),
      scales: { x: { time: true, min: data.from / 1000, max: data.to / 1000 } },
      legend: { show: false },
      cursor: { drag: { x: true, y: false }, points: { size: 7 } },
      series: [
        { value: function (u, v) { return v == null ? '–' : time(v); } },
        { label: 'p50', stroke: color('--accent'), width: 2, points: { show: chart.buckets.length < 60, size: 5, fill: color('--accent') } },
        { label: 'p95', stroke: color('--chart-p95'), width: 1.5, dash: [5, 4], points: { show: false } },
        { label: 'min', stroke: 'transparent', points: { show: false } },
        { label: 'max', stroke: 'transparent', points: { show: false } },
      ],
      bands: [{ series: [4, 3], fill: color('--chart-band') }],
      axes: [axis, Object.assign({}, axis, {
        size: 56,
        values: function (u, ticks) { return ticks.map(compact); },
      })],
      plugins: [tooltip(columns), markers(chart.key)],
      hooks: {
        // The visible range, readable by tests and assistive tools after a zoom.
        setScale: [function (u, key) {
          if (key === 'x') node.setAttribute('data-x-range', time(u.scales.x.min) + ' – ' + time(u.scales.x.max));
        }],
      },
    };
    node.textContent = '';
    var plot = new uPlot(options, columns.slice(0, 5), node);
    node.setAttribute('data-drawn', String(chart.buckets.length));
    charts.push([plot, node]);
  }
  var nodes = document.querySelectorAll('.chart[data-key]');
  var queue = [];
  data.charts.forEach(function (chart) {
    var node = Array.prototype.find.call(nodes, function (n) {
      return n.getAttribute('data-key') === chart.key;
    });
    if (node) queue.push([chart, node]);
  });

  // uPlot (about 50 kB) is fetched and run when the first chart is about to be seen, not while
  // the page loads: on a phone the charts are below the fold, and running it there was a long
  // task of the load (issue 28's Total Blocking Time).
  var library;
  function withUplot(then) {
    if (typeof uPlot !== 'undefined') return then();
    if (!library) {
      library = new Promise(function (resolve, reject) {
        var script = document.createElement('script');
        script.src = UPLOT_SRC;
        script.onload = resolve;
        script.onerror = reject;
        document.head.appendChild(script);
      });
    }
    library.then(then, function () {});
  }

  // Charts are drawn as they come within half a screen of the viewport, one per task and in the
  // page's order: all of them at load held a phone's main thread for most of a second (issue 28),
  // for charts nobody had scrolled to yet. The body says when the last one is drawn.
  var near = [];
  var drawing = false;
  function drawNext() {
    if (drawing || near.length === 0) return;
    drawing = true;
    var next = near.shift();
    withUplot(function () {
      draw(next[0], next[1], next[2]);
      if (charts.length === queue.length) {
        document.body.setAttribute('data-charts-drawn', String(charts.length));
      }
      setTimeout(function () { drawing = false; drawNext(); }, 0);
    });
  }
  function approach(items) {
    // Their widths read at once, before any is drawn: a read after each canvas went in made the
    // browser lay the page out again for every chart.
    var widths = items.map(function (q) { return q[1].clientWidth; });
    items.forEach(function (q, i) { near.push([q[0], q[1], widths[i], q[2]]); });
    near.sort(function (a, b) { return a[3] - b[3]; });
    drawNext();
  }
  queue.forEach(function (q, i) { q.push(i); });
  if (queue.length === 0) document.body.setAttribute('data-charts-drawn', '0');
  else if (typeof IntersectionObserver === 'undefined') approach(queue.slice());
  else {
    var observer = new IntersectionObserver(function (entries) {
      var items = [];
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        observer.unobserve(entry.target);
        items.push(queue.find(function (q) { return q[1] === entry.target; }));
      });
      if (items.length > 0) approach(items);
    }, { rootMargin: '50% 0px' });
    queue.forEach(function (q) { observer.observe(q[1]); });
  }
  var pending;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      charts.forEach(function (c) { c[0].setSize({ width: c[1].clientWidth, height: chartHeight() }); });
    }, 100);
  });
})();
`;
