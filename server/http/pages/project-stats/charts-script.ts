/**
 * The statistics page's only script, served as an asset (CSP `script-src 'self'`): draws one
 * uPlot chart per series from the page's JSON data block, shows a tooltip under the cursor,
 * submits the filters when they change, and copies a new share link. The page works without it.
 * Plain ES2019 for every current browser; no build step.
 */
export const CHARTS_SCRIPT = `(function () {
  'use strict';
  var forms = document.querySelectorAll('form[data-autosubmit]');
  Array.prototype.forEach.call(forms, function (form) {
    form.addEventListener('change', function (event) {
      var custom = form.elements.range && form.elements.range.value === 'custom';
      if (event.target.type === 'date' && !custom) return;
      if (event.target.name === 'range' && custom) return;
      form.submit();
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll('[data-copy]'), function (button) {
    button.addEventListener('click', function () {
      var input = document.getElementById(button.getAttribute('data-copy'));
      input.select();
      var done = function () { button.textContent = 'Copied'; };
      if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, function () {});
      else if (document.execCommand('copy')) done();
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
  if (!block || typeof uPlot === 'undefined') return;
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
          var left = Math.min(u.cursor.left + 12, u.over.clientWidth - box.offsetWidth);
          box.style.left = Math.max(0, left) + 'px';
          box.style.top = Math.max(0, u.cursor.top - box.offsetHeight - 8) + 'px';
        },
      },
    };
  }

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
  data.charts.forEach(function (chart) {
    var nodes = document.querySelectorAll('.chart[data-key]');
    var node = Array.prototype.find.call(nodes, function (n) {
      return n.getAttribute('data-key') === chart.key;
    });
    if (!node) return;
    var columns = [[], [], [], [], [], [], [], [], []];
    chart.buckets.forEach(function (b) { b.forEach(function (v, i) { columns[i].push(v); }); });
    var axis = { stroke: color('--muted'), grid: { stroke: color('--border'), width: 1 }, ticks: { stroke: color('--border') } };
    var options = {
      width: node.clientWidth || 600,
      height: 220,
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
  });
  var pending;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      charts.forEach(function (c) { c[0].setSize({ width: c[1].clientWidth, height: 220 }); });
    }, 100);
  });
})();
`;
