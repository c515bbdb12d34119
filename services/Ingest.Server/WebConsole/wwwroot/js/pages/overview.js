// Overview: health with every reason it is not 200, the store and its collections, the ingestion rate per source
// as a live chart, lag per partition or queue, ETL tasks with their lag and indexes with their staleness.
//
// It polls GET /health and GET /stats every 2 seconds rather than listening to server-sent events: the API has no
// event stream, and a poll reuses the very endpoints a script or `ingest stats` uses, so what the page shows is
// what anyone can read with curl. Rates are computed here from successive `consumed`/`written` counters. When the
// server stops answering, the loop keeps trying and every figure stays as last received (the shell says so).

import { ApiError, getJson } from '../api.js';
import { lineChart } from '../chart.js';
import { every, formatBytes, formatNumber, h, problemBox, replace, table } from '../ui.js';

const pollMs = 2000;
const windowMs = 5 * 60 * 1000; // the chart's last minutes

export async function mount(root, { signal }) {
  const reading = h('p', { class: 'muted' }, 'Reading…');
  const healthCard = h('section', { class: 'card', 'aria-labelledby': 'health-title' }, h('h2', { id: 'health-title' }, 'Health'), reading);
  const storeCard = h('section', { class: 'card', 'aria-labelledby': 'store-title' }, h('h2', { id: 'store-title' }, 'Store'));
  const rateCard = h('section', { class: 'card', 'aria-labelledby': 'rate-title' }, h('h2', { id: 'rate-title' }, 'Ingestion'));
  const lagCard = h('section', { class: 'card', 'aria-labelledby': 'lag-title' }, h('h2', { id: 'lag-title' }, 'Lag per partition or queue'));
  const etlCard = h('section', { class: 'card', 'aria-labelledby': 'etl-title' }, h('h2', { id: 'etl-title' }, 'ETL tasks'));
  const indexCard = h('section', { class: 'card', 'aria-labelledby': 'indexes-title' }, h('h2', { id: 'indexes-title' }, 'Indexes'));
  const updated = h('p', { class: 'muted updated' });
  root.append(h('h1', { id: 'page-title' }, 'Overview'), updated,
    h('div', { class: 'grid' }, healthCard, storeCard), rateCard, lagCard, h('div', { class: 'grid' }, etlCard, indexCard));

  const samples = new Map(); // source name -> [{ t, consumed, written }] within the window
  const healthBody = h('div', { 'aria-live': 'polite' });
  healthCard.append(healthBody);

  await every(pollMs, signal, async () => {
    const [health, stats] = await Promise.all([readHealth(signal), getJson('/stats', { signal })]);
    const now = Date.now();
    record(samples, stats.sources ?? [], now);
    replace(healthBody, renderHealth(health, stats));
    reading.remove();
    update(storeCard, h('h2', { id: 'store-title' }, 'Store'), renderStore(stats));
    update(rateCard, h('h2', { id: 'rate-title' }, 'Ingestion'), renderRates(stats.sources ?? [], samples));
    update(lagCard, h('h2', { id: 'lag-title' }, 'Lag per partition or queue'), renderLag(stats.sources ?? []));
    update(etlCard, h('h2', { id: 'etl-title' }, 'ETL tasks'), renderEtl(stats.etl ?? []));
    update(indexCard, h('h2', { id: 'indexes-title' }, 'Indexes'), renderIndexes(stats.indexes ?? []));
    replace(updated, `Updated ${new Date(now).toLocaleTimeString()}, every ${pollMs / 1000} s.`);
  }).catch(() => {});

  async function readHealth(abort) {
    try {
      return { code: 200, body: await getJson('/health', { signal: abort }) };
    } catch (error) {
      // 503 is the unhealthy answer, with the same body: its reasons are what this page is for.
      if (error instanceof ApiError && error.status === 503 && error.problem?.status !== undefined) return { code: 503, body: error.problem };
      if (error instanceof ApiError && !error.offline) replace(healthBody, problemBox(error));
      throw error;
    }
  }
}

/**
 * Replaces a card's content every poll without taking the keyboard away: the focused link or scrolling table is
 * focused again in the new content (found by its href, or by its label for a table's scrolling region).
 */
function update(card, ...children) {
  const focused = card.contains(document.activeElement) ? document.activeElement : null;
  const key = focused && (focused.getAttribute('href') ?? focused.getAttribute('aria-label'));
  const scroll = focused?.classList.contains('table-wrap') ? focused.scrollLeft : 0;
  replace(card, ...children);
  if (!key) return;
  const again = [...card.querySelectorAll('a[href], .table-wrap')].find((element) => (element.getAttribute('href') ?? element.getAttribute('aria-label')) === key);
  if (again) {
    again.focus({ preventScroll: true });
    again.scrollLeft = scroll;
  }
}

function record(samples, sources, now) {
  for (const source of sources) {
    const list = samples.get(source.name) ?? [];
    const last = list[list.length - 1];
    // Counters go back only when the server restarted: start the series again.
    if (last && (source.consumed < last.consumed || source.written < last.written)) list.length = 0;
    list.push({ t: now, consumed: source.consumed, written: source.written });
    while (list.length > 0 && now - list[0].t > windowMs) list.shift();
    samples.set(source.name, list);
  }
}

/** Per second between successive samples: [[t, rate], ...] for field. */
function rates(list, field) {
  const points = [];
  for (let i = 1; i < list.length; i++) {
    const seconds = (list[i].t - list[i - 1].t) / 1000;
    if (seconds > 0) points.push([list[i].t, (list[i][field] - list[i - 1][field]) / seconds]);
  }
  return points;
}

function latest(points) { return points.length === 0 ? null : points[points.length - 1][1]; }

function formatRate(value) { return value === null ? '–' : `${formatNumber(Math.round(value * 10) / 10)}/s`; }

/** Every reason /health is not 200, from its body, plus what /stats says of sources (errors, warnings, pauses). */
function healthReasons(body, stats) {
  const reasons = [];
  const notes = [];
  if (body.store && body.store !== 'open') reasons.push(`The store is ${body.store}${body.storeError ? `: ${body.storeError}` : '.'}`);
  for (const source of body.sources ?? []) {
    if (!source.connected) reasons.push(`Source ${source.name} (${source.kind}) is not connected${source.error ? `: ${source.error}` : '.'}`);
    else if (source.error) reasons.push(`Source ${source.name} (${source.kind}): ${source.error}`);
    if (source.warning) notes.push(`Source ${source.name}: ${source.warning}`);
  }
  for (const index of body.indexes ?? []) {
    if (index.state === 'errored') reasons.push(`Index ${index.name} is errored${index.error ? `: ${index.error}` : '.'}`);
  }
  for (const task of body.etl ?? []) {
    if (task.state === 'retrying' || task.state === 'errored') reasons.push(`ETL task ${task.name} is ${task.state}${task.error ? `: ${task.error}` : '.'}`);
  }
  for (const source of stats.sources ?? []) {
    if (source.paused) notes.push(`Source ${source.name} is paused: the store is behind its writes.`);
    if (source.lostToRetention > 0) notes.push(`Source ${source.name} lost ${formatNumber(source.lostToRetention)} records to the topic's retention.`);
  }
  for (const task of stats.etl ?? []) {
    if (task.errors > 0) notes.push(`ETL task ${task.name} has ${formatNumber(task.errors)} documents in its error list.`);
  }
  if (body.status !== 'healthy' && reasons.length === 0) reasons.push('The server says it is unhealthy without naming a part.');
  return { reasons, notes };
}

function renderHealth({ code, body }, stats) {
  const { reasons, notes } = healthReasons(body, stats);
  const healthy = body.status === 'healthy';
  return [
    h('p', { class: `status ${healthy ? 'healthy' : 'unhealthy'}` }, `${healthy ? 'Healthy' : 'Unhealthy'} (GET /health answers ${code})`),
    reasons.length > 0 ? h('ul', { class: 'reasons', 'aria-label': 'Why it is not healthy' }, reasons.map((reason) => h('li', { class: 'bad' }, reason))) : null,
    notes.length > 0 ? h('ul', { class: 'reasons', 'aria-label': 'Warnings' }, notes.map((note) => h('li', { class: 'warn' }, note))) : null,
    healthy && notes.length === 0 ? h('p', { class: 'muted' }, 'The store is open, every source is connected, no index is errored and every ETL task runs.') : null,
  ];
}

function renderStore(stats) {
  const store = stats.store ?? {};
  const figures = [
    ['Documents', formatNumber(store.documents)],
    ['On disk', formatBytes(store.storageBytes)],
    ['JSON bodies', formatBytes(store.documentBytes)],
    ['Dead letters', formatNumber(stats.deadLetters)],
    ['Free on the file system', formatBytes(store.fileSystemFreeBytes)],
    ['Last etag', formatNumber(store.lastEtag)],
  ];
  const rows = (stats.collections ?? []).map((collection) => [
    h('a', { href: `#/documents?${new URLSearchParams({ collection: collection.name })}` }, collection.name),
    formatNumber(collection.count),
    formatBytes(collection.bodyBytes),
    formatBytes(collection.storedBodyBytes),
  ]);
  return [
    h('dl', { class: 'figures' }, figures.map(([name, value]) => h('div', {}, h('dt', {}, name), h('dd', {}, value)))),
    table('Collections', ['Collection', 'Documents', 'JSON size', 'Stored size'], rows, { numeric: ['Documents', 'JSON size', 'Stored size'] }),
  ];
}

function renderRates(sources, samples) {
  if (sources.length === 0) {
    return h('p', { class: 'muted' }, 'No source is configured (Ingest:Sources:Kafka or Ingest:Sources:RabbitMq). Documents written over HTTP still show in the store\'s figures.');
  }
  const series = sources.map((source) => ({ name: `${source.name} written/s`, points: rates(samples.get(source.name) ?? [], 'written') }));
  const rows = sources.map((source) => {
    const list = samples.get(source.name) ?? [];
    return [
      source.name,
      source.kind,
      source.connected ? h('span', { class: 'good' }, 'connected') : h('span', { class: 'bad' }, 'not connected'),
      formatNumber(source.consumed),
      formatNumber(source.written),
      formatNumber(source.deadLetters),
      formatRate(latest(rates(list, 'consumed'))),
      formatRate(latest(rates(list, 'written'))),
    ];
  });
  return [
    lineChart(series, { label: 'Documents written per second by each source over the last five minutes', unit: '/s' }),
    table('Sources', ['Source', 'Kind', 'Connection', 'Consumed', 'Written', 'Dead letters', 'Consumed/s', 'Written/s'], rows,
      { numeric: ['Consumed', 'Written', 'Dead letters', 'Consumed/s', 'Written/s'] }),
  ];
}

function renderLag(sources) {
  const rows = [];
  for (const source of sources) {
    for (const partition of source.partitions ?? []) {
      rows.push([source.name, partition.name, source.kind === 'kafka' ? formatNumber(partition.partition) : 'queue',
        formatNumber(partition.committedOffset), formatNumber(partition.highWatermark), formatNumber(partition.lag)]);
    }
  }
  return table('Lag', ['Source', 'Topic or queue', 'Partition', 'Committed', 'High watermark', 'Lag'], rows,
    { numeric: ['Committed', 'High watermark', 'Lag'] });
}

function renderEtl(tasks) {
  const rows = tasks.map((task) => [
    h('a', { href: `#/etl?${new URLSearchParams({ task: task.name })}` }, task.name),
    h('span', { class: task.state === 'running' ? 'good' : 'bad' }, task.state),
    formatNumber(task.lagChanges),
    `${formatNumber(Math.round(task.lagSeconds * 10) / 10)} s`,
    formatRate(task.messagesPerSecond),
    formatNumber(task.errors),
    task.lastError ?? '',
  ]);
  return table('ETL tasks', ['Task', 'State', 'Lag (changes)', 'Lag (age)', 'Sent/s', 'Errors', 'Last error'], rows,
    { numeric: ['Lag (changes)', 'Lag (age)', 'Sent/s', 'Errors'] });
}

function renderIndexes(indexes) {
  const rows = indexes.map((index) => [
    h('a', { href: `#/indexes?${new URLSearchParams({ name: index.name })}` }, index.name),
    h('span', { class: index.state === 'errored' ? 'bad' : null }, index.state),
    index.stale ? h('span', { class: 'warn' }, `stale, ${formatNumber(Math.max(0, index.collectionsLastEtag - index.lastIndexedEtag))} etags behind`) : 'up to date',
    formatNumber(index.entries),
    index.error ?? '',
  ]);
  return table('Indexes', ['Index', 'State', 'Staleness', 'Entries', 'Error'], rows, { numeric: ['Entries'] });
}
