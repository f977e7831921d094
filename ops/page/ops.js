// long-file (465 lines): one page's script, served as is with no build step or bundler: its fetch loop, tiles and tables in one IIFE.
/* The operations page: fetches /api/summary every few seconds and redraws in place (no reload,
 * no build step). Every value from the server goes into the page as text, never as HTML. */
(function () {
  'use strict';

  var REFRESH_MS = 5000;
  var STATUS_COLOURS = {
    PROCESSED: '#3fb950',
    IN_PROGRESS: '#58a6ff',
    PENDING: '#6e7f96',
    STAGED: '#b08800',
    DRY_RUN_SUCCEEDED: '#39c5bb',
    DRY_RUN_ERRORED: '#f0883e',
    ERRORED: '#f85149',
    CANCELLED: '#a371f7',
  };
  var STATUS_ORDER = ['PROCESSED', 'IN_PROGRESS', 'PENDING', 'STAGED', 'ERRORED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED', 'CANCELLED'];

  var $ = function (id) { return document.getElementById(id); };
  var supplierSelect = $('supplier');
  var hoursSelect = $('hours');
  var last = null;
  var charts = {};
  var openCodes = {}; // error code -> {cell, count} while its account list is open

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'className') e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }
  var fmt = new Intl.NumberFormat('en-GB');
  function n(x) { return fmt.format(x); }
  function pct(x) { return (Math.floor(x * 1000) / 10).toFixed(1) + ' %'; }
  function duration(seconds) {
    if (seconds === null || seconds === undefined) return '–';
    if (seconds < 60) return Math.round(seconds) + ' s';
    var m = Math.round(seconds / 60);
    if (m < 60) return m + ' min';
    var h = Math.floor(m / 60);
    if (h < 48) return h + ' h ' + (m % 60) + ' min';
    return Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
  }
  function ms(x) {
    if (x < 1000) return Math.round(x) + ' ms';
    if (x < 60000) return (x / 1000).toFixed(x < 10000 ? 1 : 0) + ' s';
    return duration(x / 1000);
  }
  function clock(iso) { return new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' }); }
  function query() {
    var q = 'hours=' + encodeURIComponent(hoursSelect.value);
    if (supplierSelect.value) q += '&supplier=' + encodeURIComponent(supplierSelect.value);
    return q;
  }
  function getJson(url) {
    return fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) return r.json().then(function (b) { throw new Error(b.code || r.status); }, function () { throw new Error(String(r.status)); });
      return r.json();
    });
  }

  /* ---------- counts ---------- */

  function countsTable(tbody, entries, total, colours) {
    tbody.replaceChildren();
    if (entries.length === 0) {
      tbody.appendChild(el('tr', {}, [el('td', { className: 'empty', text: 'none yet' })]));
      return;
    }
    entries.forEach(function (e) {
      var name = el('td', {}, [colours ? el('span', { className: 'swatch', style: 'background:' + colours[e[0]] }) : null]);
      name.appendChild(document.createTextNode(e[0]));
      tbody.appendChild(el('tr', { 'data-status': e[0] }, [
        name,
        el('td', { className: 'num count' + (e[1] ? '' : ' zero'), text: n(e[1]) }),
        el('td', { className: 'num dim', text: total ? pct(e[1] / total) : '' }),
      ]));
    });
  }

  function renderTiles(s) {
    var by = s.imports.by_status;
    $('share').textContent = pct(s.imports.processed_share);
    $('share-detail').textContent = n(by.PROCESSED) + ' of ' + n(s.imports.total) + ' imports PROCESSED';
    var bar = $('statusbar');
    bar.replaceChildren();
    STATUS_ORDER.forEach(function (st) {
      if (by[st] && s.imports.total) bar.appendChild(el('span', { title: st + ' ' + by[st], style: 'width:' + (100 * by[st] / s.imports.total) + '%;background:' + STATUS_COLOURS[st] }));
    });
    $('rate').textContent = s.rate.processed_per_minute.toFixed(1);
    $('rate-window').textContent = '· last ' + s.rate.window_minutes + ' min';
    $('eta').textContent = s.rate.remaining === 0 ? 'none' : s.rate.eta_seconds === null ? 'stalled' : duration(s.rate.eta_seconds);
    $('eta').className = 'big' + (s.rate.remaining > 0 && s.rate.eta_seconds === null ? ' stalled' : '');
    $('eta-detail').textContent = n(s.rate.remaining) + ' PENDING or IN_PROGRESS' + (s.rate.eta_at && s.rate.remaining ? ' · done ≈ ' + clock(s.rate.eta_at) : '');
    var errored = by.ERRORED + by.DRY_RUN_ERRORED;
    $('errored').textContent = n(errored);
    $('errored').className = 'big' + (errored ? ' nonzero' : '');
    $('errored-detail').textContent = s.imports.total ? pct(errored / s.imports.total) + ' of all imports' : '\u00a0';
    $('outbox-backlog').textContent = n(s.outbox.backlog);
    $('outbox-backlog').className = 'big' + (s.outbox.backlog ? ' nonzero' : '');
    var asideQueues = Object.keys(s.set_aside).sort();
    var aside = asideQueues.reduce(function (a, q) { return a + s.set_aside[q]; }, 0);
    $('set-aside').textContent = n(aside);
    $('set-aside').className = 'big' + (aside ? ' nonzero' : '');
    $('set-aside-detail').textContent = aside
      ? asideQueues.filter(function (q) { return s.set_aside[q]; }).map(function (q) { return q + ' ' + n(s.set_aside[q]); }).join(' · ') + ' · data-import set-aside list'
      : 'queue items after their last attempt · data-import set-aside list';
    $('relay-lag').textContent = s.outbox.backlog ? duration(s.outbox.oldest_age_seconds) : '0 s';
  }

  function renderCounts(s) {
    countsTable($('status-table').tBodies[0], STATUS_ORDER.map(function (st) { return [st, s.imports.by_status[st]]; }), s.imports.total, STATUS_COLOURS);
    function entries(o) { return Object.keys(o).sort().map(function (k) { return [k, o[k]]; }); }
    function sum(o) { return Object.keys(o).reduce(function (a, k) { return a + o[k]; }, 0); }
    countsTable($('registrations-table').tBodies[0], entries(s.registrations), sum(s.registrations));
    countsTable($('emails-table').tBodies[0], entries(s.emails), sum(s.emails));
  }

  /* ---------- errors and affected accounts ---------- */

  function accountRows(code, page) {
    var rows = page.items.map(function (it) {
      var hash = '#/imports/' + encodeURIComponent(it.import_supplier) + '/' + encodeURIComponent(it.external_account_number);
      return el('tr', { 'data-account': it.external_account_number }, [
        el('td', { className: 'mono' }, [el('a', { href: hash, className: 'record-link', text: it.external_account_number })]),
        el('td', { className: 'dim', text: it.import_supplier }),
        el('td', { className: 'dim', text: it.status }),
        el('td', {}, [el('a', { href: hash, text: 'status record' })]),
        el('td', {}, [el('a', { href: it.temporal_url, target: '_blank', rel: 'noopener', className: 'temporal-link', text: 'Temporal UI ↗' })]),
      ]);
    });
    return rows;
  }

  function loadAccounts(code, container, after) {
    var url = '/api/errors?code=' + encodeURIComponent(code) + (supplierSelect.value ? '&supplier=' + encodeURIComponent(supplierSelect.value) : '') + (after ? '&after=' + encodeURIComponent(after) : '');
    return getJson(url).then(function (page) {
      var table = container.querySelector('table') || container.appendChild(el('table', { className: 'affected' }, [el('tbody')]));
      accountRows(code, page).forEach(function (r) { table.tBodies[0].appendChild(r); });
      var more = container.querySelector('button.more');
      if (more) more.remove();
      if (page.next) {
        var b = el('button', { className: 'more', text: 'more…' });
        b.onclick = function () { loadAccounts(code, container, page.next); };
        container.appendChild(b);
      }
    });
  }

  function renderErrors(s) {
    var tbody = $('errors-table').tBodies[0];
    tbody.replaceChildren();
    if (s.errors.length === 0) {
      tbody.appendChild(el('tr', {}, [el('td', { className: 'empty', text: 'no errored imports' })]));
      return;
    }
    s.errors.forEach(function (e) {
      var button = el('button', { text: openCodes[e.code] ? 'hide accounts' : 'show accounts', 'aria-expanded': String(!!openCodes[e.code]) });
      var row = el('tr', { 'data-error-code': e.code }, [
        el('td', { className: 'code', text: e.code }),
        el('td', { className: 'num count', text: n(e.count) }),
        el('td', { className: 'num' }, [button]),
      ]);
      tbody.appendChild(row);
      var open = openCodes[e.code];
      if (open) {
        // Reuse the list already shown while its count is unchanged: no flicker on every refresh.
        if (!open.cell || open.count !== e.count) {
          open.cell = el('td', { colspan: '3' });
          open.count = e.count;
          loadAccounts(e.code, open.cell).catch(function (err) { open.cell.textContent = 'could not load: ' + err.message; });
        }
        tbody.appendChild(el('tr', { className: 'accounts', 'data-accounts-of': e.code }, [open.cell]));
      }
      button.onclick = function () {
        openCodes[e.code] = openCodes[e.code] ? undefined : {};
        renderErrors(last);
      };
    });
  }

  /* ---------- charts ---------- */

  function axisStyle() {
    return { stroke: '#8b98a8', grid: { stroke: '#2a3542', width: 1 }, ticks: { stroke: '#2a3542', width: 1 } };
  }

  function timeLabels(u, splits) {
    return splits.map(function (t) { return new Date(t * 1000).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' }); });
  }

  function chart(key, container, series, yValues, legend) {
    var width = Math.max(300, container.clientWidth);
    if (charts[key] && charts[key].width === width) return charts[key].plot;
    if (charts[key]) charts[key].plot.destroy();
    var opts = {
      width: width,
      height: 220,
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: function (u, min, max) { return [0, Math.max(1, max * 1.1)]; } } },
      legend: { show: !!legend },
      axes: [Object.assign(axisStyle(), { space: 70, values: timeLabels }), Object.assign(axisStyle(), { size: 60, values: yValues })],
      series: [{}].concat(series),
    };
    var plot = new uPlot(opts, [[]].concat(series.map(function () { return []; })), container);
    charts[key] = { plot: plot, width: width };
    return plot;
  }

  function renderRateChart(s) {
    var w = windowOf(s);
    var start = w.min, end = w.max;
    var byMinute = {};
    s.processed_per_minute.forEach(function (p) { byMinute[Date.parse(p.minute) / 1000] = p.processed; });
    var xs = [], ys = [];
    // Minutes with none stay empty (null), not a stub of a bar.
    for (var t = start; t <= end; t += 60) { xs.push(t); ys.push(byMinute[t] || null); }
    var plot = chart('rate', $('chart-rate'), [{
      label: 'PROCESSED / min',
      stroke: '#3fb950',
      fill: 'rgba(63,185,80,0.35)',
      paths: uPlot.paths.bars({ size: [0.9, 12] }),
      points: { show: false },
    }]);
    plot.setData([xs, ys]);
  }

  /** Both charts span the chosen window, so their time axes line up. */
  function windowOf(s) {
    var end = Math.floor(Date.parse(s.generated_at) / 60000) * 60;
    return { min: end - s.hours * 3600, max: end };
  }

  function renderLatencyChart(s) {
    var pts = s.latency.points;
    $('latency-bin').textContent = s.latency.bin_minutes;
    var plot = chart('latency', $('chart-latency'), [
      { label: 'p50', stroke: '#58a6ff', width: 2, value: function (u, v) { return v === null ? '–' : ms(v); } },
      { label: 'p95', stroke: '#d29922', width: 2, value: function (u, v) { return v === null ? '–' : ms(v); } },
    ], function (u, vals) { return vals.map(function (v) { return ms(v); }); }, true);
    plot.setData([
      pts.map(function (p) { return Date.parse(p.at) / 1000; }),
      pts.map(function (p) { return p.p50_ms; }),
      pts.map(function (p) { return p.p95_ms; }),
    ]);
    plot.setScale('x', windowOf(s));
  }

  /* ---------- the status record (page-local view) ---------- */

  function showRecord() {
    var m = /^#\/imports\/([^/]+)\/(.+)$/.exec(location.hash);
    var box = $('record');
    if (!m) { box.hidden = true; return; }
    getJson('/api/imports/' + m[1] + '/' + m[2]).then(function (r) {
      $('record-title').textContent = r.import_supplier + ' / ' + r.external_account_number;
      var dl = $('record-fields');
      dl.replaceChildren();
      [
        ['status', r.status + (r.is_dry_run ? ' (dry run)' : '')],
        ['run', r.run],
        ['step', r.current_step || '–'],
        ['account', r.kraken_identifier || '–'],
        ['latest event', r.latest_event.event],
        ['error code', r.latest_error ? r.latest_error.code : '–'],
        ['created', r.created_at],
        ['modified', r.modified_at],
        ['workflow id', r.workflow_id],
        ['API status', r.api_status_path],
      ].forEach(function (f) {
        dl.appendChild(el('dt', { text: f[0] }));
        dl.appendChild(el('dd', { text: String(f[1]), 'data-field': f[0] }));
      });
      $('record-temporal').href = r.temporal_url;
      box.hidden = false;
    }, function (err) {
      $('record-title').textContent = 'Not found (' + err.message + ')';
      $('record-fields').replaceChildren();
      box.hidden = false;
    });
  }
  window.addEventListener('hashchange', showRecord);
  $('record').addEventListener('click', function (e) { if (e.target === $('record')) location.hash = ''; });
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') location.hash = ''; });

  /* ---------- builds (the worker deployment, from Temporal) ---------- */

  function renderBuilds(b) {
    $('deployment').textContent = b.deployment;
    $('deployment-link').setAttribute('href', b.temporal_url);
    var routing = b.current_build_id ? 'New imports start on ' + b.current_build_id : 'No build is current: new imports wait';
    if (b.ramping) routing += '; ' + b.ramping.percentage + ' % ramped to ' + b.ramping.build_id;
    if (b.routing_updating) routing += ' (change propagating)';
    routing += ' · ' + n(b.open_imports) + (b.open_imports === 1 ? ' open import' : ' open imports') + (b.unassigned_open_imports ? ', ' + n(b.unassigned_open_imports) + ' not yet on a build' : '');
    $('routing').textContent = routing;
    var tbody = $('builds-table').tBodies[0];
    tbody.replaceChildren();
    if (b.builds.length === 0) {
      tbody.appendChild(el('tr', {}, [el('td', { className: 'empty', text: 'no worker has registered a build yet' })]));
      return;
    }
    b.builds.forEach(function (x) {
      var since = x.status === 'CURRENT' ? x.current_since : x.status === 'RAMPING' ? x.ramping_since : x.deactivated_at || x.created_at;
      tbody.appendChild(el('tr', { 'data-build': x.build_id, 'data-build-status': x.status }, [
        el('td', { className: 'build', text: x.build_id }),
        el('td', { className: 'status', text: x.status + (x.status === 'RAMPING' && b.ramping ? ' ' + b.ramping.percentage + ' %' : '') }),
        el('td', { className: 'num workers', text: n(x.workers) }),
        el('td', { className: 'num open-imports', text: n(x.open_imports) }),
        el('td', { className: 'num', text: n(x.open_workflows - x.open_imports) }),
        el('td', { className: 'dim', text: since ? clock(since) : '' }),
      ]));
    });
  }

  function refreshBuilds() {
    return getJson('/api/builds').then(renderBuilds, function (err) {
      $('routing').textContent = 'Temporal does not answer (' + err.message + '): the builds are unknown for now';
    });
  }

  /* ---------- the current tranche ---------- */

  // The book the operator picked, read here line by line: only its account numbers (per supplier)
  // are kept and sent to POST /api/tranche at each refresh (issue 40).
  var tranche = null; // { name, numbers: { supplier: [external, ...] } }

  function readBook(file) {
    var numbers = {};
    var decoder = new TextDecoder();
    var rest = '';
    var reader = file.stream().getReader();
    function line(text) {
      if (!text.trim()) return;
      try {
        var a = JSON.parse(text);
        if (a && typeof a.import_supplier === 'string' && typeof a.external_account_number === 'string') {
          (numbers[a.import_supplier] = numbers[a.import_supplier] || []).push(a.external_account_number);
        }
      } catch (e) { /* not an account: migrate reports it */ }
    }
    function pump() {
      return reader.read().then(function (r) {
        if (r.done) { line(rest + decoder.decode()); return numbers; }
        var lines = (rest + decoder.decode(r.value, { stream: true })).split('\n');
        rest = lines.pop();
        lines.forEach(line);
        return pump();
      });
    }
    return pump();
  }

  function postJson(url, body) {
    return fetch(url, { method: 'POST', headers: { Accept: 'application/json', 'Content-Type': 'application/json' }, credentials: 'same-origin', body: JSON.stringify(body) }).then(function (r) {
      if (!r.ok) return r.json().then(function (b) { throw new Error(b.code || r.status); }, function () { throw new Error(String(r.status)); });
      return r.json();
    });
  }

  function refreshTranche(s) {
    if (!tranche) return Promise.resolve();
    var suppliers = Object.keys(tranche.numbers).sort();
    return Promise.all(suppliers.map(function (code) {
      return postJson('/api/tranche', { import_supplier: code, external_account_numbers: tranche.numbers[code] });
    })).then(function (answers) {
      var tbody = $('tranche-table').querySelector('tbody');
      tbody.replaceChildren();
      var detail = [];
      answers.forEach(function (t) {
        var processed = t.by_status.PROCESSED || 0;
        var supplierTotal = s && s.import_supplier === t.import_supplier ? s.imports.by_status.PROCESSED : null;
        detail.push(t.import_supplier + ': ' + n(processed) + ' of ' + n(t.accounts) + ' PROCESSED (' + pct(t.processed_share) + '), ' + n(t.remaining) + ' to go' +
          (supplierTotal !== null ? ' · the supplier: ' + n(supplierTotal) + ' PROCESSED in all' : ''));
        var rows = Object.keys(t.by_status).sort().map(function (k) { return [k, t.by_status[k]]; }).concat([['not started', t.not_started]]);
        rows.forEach(function (r) {
          tbody.appendChild(el('tr', { 'data-tranche-status': r[0] }, [
            el('td', { text: t.import_supplier + ' ' + r[0] }),
            el('td', { className: 'num', text: n(r[1]) }),
          ]));
        });
      });
      $('tranche-detail').textContent = tranche.name + ' — ' + detail.join('; ');
    }, function (err) {
      $('tranche-detail').textContent = tranche.name + ': the tranche could not be read (' + err.message + ')';
    });
  }

  $('tranche-book').addEventListener('change', function (e) {
    var file = e.target.files && e.target.files[0];
    if (!file) { tranche = null; return; }
    $('tranche-detail').textContent = 'reading ' + file.name + '…';
    readBook(file).then(function (numbers) {
      tranche = { name: file.name, numbers: numbers };
      // The tranche's supplier, for the totals beside it.
      var codes = Object.keys(numbers);
      if (codes.length === 1 && supplierSelect.value !== codes[0]) {
        if (!Array.prototype.some.call(supplierSelect.options, function (o) { return o.value === codes[0]; })) supplierSelect.appendChild(el('option', { value: codes[0], text: codes[0] }));
        supplierSelect.value = codes[0];
        selectionChanged();
      } else {
        refreshTranche(last);
      }
    });
  });

  /* ---------- refresh loop ---------- */

  function syncSuppliers(s) {
    var have = Array.prototype.map.call(supplierSelect.options, function (o) { return o.value; }).slice(1).join(',');
    if (have === s.suppliers.join(',')) return;
    var chosen = supplierSelect.value;
    while (supplierSelect.options.length > 1) supplierSelect.remove(1);
    s.suppliers.forEach(function (code) { supplierSelect.appendChild(el('option', { value: code, text: code })); });
    supplierSelect.value = chosen;
  }

  var timer = null;
  function refresh() {
    clearTimeout(timer);
    refreshBuilds();
    return getJson('/api/summary?' + query()).then(function (s) {
      last = s;
      syncSuppliers(s);
      renderTiles(s);
      renderCounts(s);
      renderErrors(s);
      renderRateChart(s);
      renderLatencyChart(s);
      refreshTranche(s);
      var u = $('updated');
      u.textContent = 'updated ' + new Date(s.generated_at).toLocaleTimeString('en-GB');
      u.className = 'updated';
      document.body.setAttribute('data-generated-at', s.generated_at);
    }, function (err) {
      var u = $('updated');
      u.textContent = 'refresh failed (' + err.message + '), retrying';
      u.className = 'updated stale';
    }).then(function () { timer = setTimeout(refresh, REFRESH_MS); });
  }

  function selectionChanged() {
    openCodes = {};
    var params = new URLSearchParams();
    if (supplierSelect.value) params.set('supplier', supplierSelect.value);
    if (hoursSelect.value !== '6') params.set('hours', hoursSelect.value);
    history.replaceState(null, '', location.pathname + (params.toString() ? '?' + params : '') + location.hash);
    refresh();
  }
  supplierSelect.addEventListener('change', selectionChanged);
  hoursSelect.addEventListener('change', selectionChanged);
  window.addEventListener('resize', function () { if (last) { renderRateChart(last); renderLatencyChart(last); } });

  // A bookmarked selection (?supplier=X&hours=24).
  var initial = new URLSearchParams(location.search);
  if (initial.get('hours')) hoursSelect.value = initial.get('hours');
  if (initial.get('supplier')) supplierSelect.appendChild(el('option', { value: initial.get('supplier'), text: initial.get('supplier') }));
  if (initial.get('supplier')) supplierSelect.value = initial.get('supplier');
  refresh();
  showRecord();
})();
