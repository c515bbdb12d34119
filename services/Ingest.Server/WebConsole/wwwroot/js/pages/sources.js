// Sources and dead letters. Each source's connection, figures and partitions (GET /stats and GET /health, polled
// every 2 s); a reset form (POST /sources/{name}/reset: earliest, latest, a time, or offsets); the dead letters
// (GET /dead-letters, paged), each opened to its decoded message (body, key, headers, reason, where it came from),
// replayed with an edited body (POST /dead-letters/{id}/replay takes the request body as the message's fixed body)
// or deleted after a confirmation. The dead-letter list follows the poll only while its first page is shown and
// its ids changed, so a person reading or editing one is not interrupted.

import { ApiError, getJson, request, sendJson } from '../api.js';
import {
  confirmAction, every, formatNumber, formatTime, h, labelled, nextId, problemBox, replace, statusNote, table,
} from '../ui.js';
import { resetForm } from './sources-reset.js';

const pageSize = 20;

export async function mount(root, { signal }) {
  const health = h('div', { 'aria-live': 'polite' });
  const sources = h('div', { class: 'card' });
  const partitions = h('div', { class: 'card' });
  const reset = resetForm(signal);
  const letters = deadLetters(signal);
  root.append(h('h1', { id: 'page-title' }, 'Sources'), health, sources, partitions, letters.element, reset.element);

  await every(2000, signal, async () => {
    let stats;
    try {
      stats = await getJson('/stats', { signal });
    } catch (error) {
      if (error instanceof ApiError && !error.offline) { sources.shown = null; replace(sources, h('h2', {}, 'Sources'), problemBox(error)); }
      throw error;
    }

    renderSources(sources, partitions, stats.sources ?? []);
    reset.update(stats.sources ?? []);
    renderHealth(health, await healthOf(signal));
    await letters.refresh(stats.deadLetters);
  });
}

/** /health's body: 200 or 503 (unhealthy, same body); any other failure is shown instead of the reasons. */
async function healthOf(signal) {
  try {
    return await getJson('/health', { signal });
  } catch (error) {
    if (error instanceof ApiError && error.status === 503) return error.problem;
    if (error instanceof ApiError && !error.offline) return { failure: error };
    throw error;
  }
}

function renderHealth(element, health) {
  // An alert is announced when it appears: rebuilt only when what it says changes.
  const text = JSON.stringify(health.failure ? health.failure.problem : health.sources);
  if (element.shown === text) return;
  element.shown = text;
  if (health.failure) { replace(element, problemBox(health.failure)); return; }
  const reasons = (health.sources ?? []).flatMap((source) => [
    source.error ? h('li', {}, h('strong', {}, source.name), `: ${source.error}`) : null,
    source.warning ? h('li', { class: 'warn' }, h('strong', {}, source.name), ` (warning): ${source.warning}`) : null,
  ]).filter(Boolean);
  replace(element, reasons.length === 0 ? null
    : h('div', { class: 'problem', role: 'alert' }, h('strong', {}, 'What the sources report'), h('ul', {}, reasons)));
}

function renderSources(sources, partitions, items) {
  // Rebuilt only when a figure changed, so focus on a scrolling table stays put between polls.
  const text = JSON.stringify(items);
  if (sources.shown === text) return;
  sources.shown = text;
  const rows = items.map((source) => [
    h('strong', {}, source.name),
    source.kind,
    h('span', { class: source.connected ? 'good' : 'bad' }, source.connected ? (source.paused ? 'connected, paused (store behind)' : 'connected') : 'not connected'),
    formatNumber(source.consumed),
    formatNumber(source.written),
    formatNumber(source.deadLetters),
    source.group ?? '–',
    source.error ? h('span', { class: 'bad break' }, source.error) : '',
  ]);
  replace(sources,
    h('h2', {}, 'Sources'),
    items.length === 0 ? h('p', { class: 'muted' }, 'No source is configured (Ingest:Sources:Kafka and Ingest:Sources:RabbitMq in the server\'s configuration).') : null,
    table('Sources', ['Source', 'Kind', 'Status', 'Consumed', 'Written', 'Dead letters', 'Group', 'Problem'], rows,
      { numeric: ['Consumed', 'Written', 'Dead letters'] }));

  const partitionRows = items.flatMap((source) => (source.partitions ?? []).map((partition) => [
    source.name, partition.name, source.kind === 'kafka' ? String(partition.partition) : '–',
    formatNumber(partition.committedOffset), formatNumber(partition.highWatermark), formatNumber(partition.lag),
  ]));
  replace(partitions, table('Partitions and queues', ['Source', 'Topic or queue', 'Partition', 'Committed', 'End', 'Lag'], partitionRows,
    { numeric: ['Committed', 'End', 'Lag'] }));
}

/** The dead-letter list with paging, and the opened one's message with replay and delete. */
function deadLetters(signal) {
  const summary = h('p', { class: 'muted' });
  const list = h('div', {});
  const paging = h('div', { class: 'actions' });
  const opened = h('div', {});
  const element = h('section', { class: 'card', 'aria-labelledby': 'dead-letters-title' },
    h('h2', { id: 'dead-letters-title' }, 'Dead letters'), summary, list, paging, opened);
  // start: the id after which the page shown begins (0: the first page); earlier: the starts of pages before it.
  let start = 0;
  const earlier = [];
  let shownIds = '';
  let openedId = null;

  async function load(force) {
    let page;
    try {
      page = await getJson(`/dead-letters?start=${start}&pageSize=${pageSize}`, { signal });
    } catch (error) {
      if (error instanceof ApiError && !error.offline) replace(list, problemBox(error));
      throw error;
    }
    const ids = page.items.map((item) => item.id).join(',');
    if (!force && ids === shownIds) return;
    shownIds = ids;
    const rows = page.items.map((item) => [
      h('button', { type: 'button', class: 'link', 'aria-label': `Open dead letter #${item.id}`, onclick: () => open(item.id) }, `#${item.id}`),
      h('span', { class: 'break' }, item.source),
      `${item.partition} / ${formatNumber(item.offset)}`,
      item.reason,
      formatTime(item.stored),
    ]);
    replace(list, table('Dead letters', ['Dead letter', 'Source', 'Partition / offset', 'Reason', 'Stored'], rows));
    replace(paging,
      earlier.length ? h('button', { type: 'button', class: 'quiet', onclick: () => { start = earlier.pop(); load(true); } }, 'Previous page') : null,
      page.next !== null && page.next !== undefined
        ? h('button', { type: 'button', class: 'quiet', onclick: () => { earlier.push(start); start = page.next; load(true); } }, 'Next page') : null);
  }

  async function open(id) {
    openedId = id;
    let letter;
    try {
      letter = await getJson(`/dead-letters/${id}`, { signal });
    } catch (error) {
      replace(opened, problemBox(error));
      return;
    }
    replace(opened, deadLetterView(letter, {
      signal,
      done: (note) => {
        // The buttons that had the focus are gone: it moves to what happened.
        openedId = null;
        note.tabIndex = -1;
        replace(opened, note);
        note.focus();
        load(true);
      },
    }));
    opened.querySelector('h3').focus();
  }

  return {
    element,
    async refresh(total) {
      replace(summary, total ? `${formatNumber(total)} dead letter${total === 1 ? '' : 's'} kept: messages that could not become documents. Open one to see its message, fix and replay it, or delete it.`
        : 'No dead letters: every message became a document.');
      // Another page, or a dead letter open: the person is reading; the list waits for them.
      if (start === 0 && openedId === null) await load(false);
    },
  };
}

function decodedBody(letter) {
  if (letter.bodyEncoding !== 'utf8') return { text: letter.body, note: letter.envelope ? 'The body is not UTF-8 text: shown in base64.' : `The stored bytes are not a message envelope (${letter.envelopeError}); all of them in base64.` };
  try {
    return { text: JSON.stringify(JSON.parse(letter.body), null, 2), note: 'JSON, formatted.' };
  } catch {
    return { text: letter.body, note: 'Not JSON: shown as text.' };
  }
}

function deadLetterView(letter, { signal, done }) {
  const body = decodedBody(letter);
  const headerRows = Object.entries(letter.headers ?? {}).map(([name, value]) => [
    h('code', {}, name), h('code', {}, value), (letter.base64Headers ?? []).includes(name) ? 'base64' : 'text']);
  const outcome = h('div', { 'aria-live': 'polite' });
  const replayable = letter.envelope;
  const edit = labelled('Body to replay', (id) => h('textarea', { id, class: 'code', spellcheck: 'false', rows: '8' }),
    'The message is mapped again with this body in place of the stored one (leave it empty to replay the message as stored).');
  edit.input.value = letter.bodyEncoding === 'utf8' ? letter.body : '';

  const replay = h('button', { type: 'button', disabled: !replayable }, 'Replay');
  replay.addEventListener('click', async () => {
    replace(outcome);
    try {
      const { json } = await sendJson('POST', `/dead-letters/${letter.id}/replay`, edit.input.value, { signal });
      const what = json.operation === 'skip' ? 'the transform skipped it'
        : json.operation === 'delete' ? `deleted document ${json.id}`
          : `stored document ${json.id} in ${json.collection}${json.etag ? ` (etag ${json.etag})` : ''}`;
      done(statusNote(`Dead letter #${letter.id} replayed: ${what}.`));
    } catch (error) {
      replace(outcome, problemBox(error));
      edit.input.focus();
    }
  });
  const remove = h('button', { type: 'button', class: 'danger' }, 'Delete');
  remove.addEventListener('click', async () => {
    if (!await confirmAction(`Delete dead letter #${letter.id}? Its message is gone for good.`, 'Delete')) return;
    try {
      await request('DELETE', `/dead-letters/${letter.id}`, { signal });
      done(statusNote(`Dead letter #${letter.id} deleted.`));
    } catch (error) {
      replace(outcome, problemBox(error));
    }
  });

  const titleId = nextId('dead-letter');
  return h('section', { class: 'card', 'aria-labelledby': titleId },
    h('h3', { id: titleId, tabindex: '-1' }, `Dead letter #${letter.id}`),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Reason'), h('dd', { class: 'bad' }, letter.reason),
      h('dt', {}, 'Source'), h('dd', {}, letter.source),
      h('dt', {}, 'Topic or queue'), h('dd', {}, letter.destination ?? '–'),
      h('dt', {}, 'Partition / offset'), h('dd', {}, `${letter.partition} / ${letter.offset}`),
      h('dt', {}, 'Key'), h('dd', {}, letter.key === null || letter.key === undefined ? 'none' : `${letter.key}${letter.keyEncoding === 'base64' ? ' (base64)' : ''}`),
      letter.messageId ? [h('dt', {}, 'Message id'), h('dd', {}, letter.messageId)] : null,
      letter.tombstone ? [h('dt', {}, 'Tombstone'), h('dd', {}, 'yes (a Kafka record with no value)')] : null,
      h('dt', {}, 'Stored'), h('dd', {}, formatTime(letter.stored)),
      h('dt', {}, 'Size'), h('dd', {}, `${formatNumber(letter.size)} bytes`)),
    h('h4', {}, 'Body'),
    h('p', { class: 'hint' }, body.note),
    h('pre', { class: 'json message', tabindex: '0', 'aria-label': `Body of dead letter ${letter.id}` }, body.text || '(empty)'),
    table(`Headers of dead letter ${letter.id}`, ['Header', 'Value', 'Encoding'], headerRows),
    replayable ? edit.field : h('p', { class: 'muted' }, 'This dead letter does not hold a whole message: it can be inspected and deleted, not replayed.'),
    h('div', { class: 'actions' }, replay, remove),
    outcome);
}
