// ETL: every task with its state, destination, lag, rate and last delivery error (GET /etl, polled every 2 s); the
// chosen task's failed documents (GET /etl/{name}/errors, paged) with a retry for each (POST .../errors/{id}/retry:
// the answer, or why it failed again, is shown in that document's row), and a reset after a confirmation
// (POST /etl/{name}/reset?etag=N sends every change after N again).

import { ApiError, getJson, request, sendJson } from '../api.js';
import { confirmAction, every, formatNumber, formatTime, h, labelled, problemBox, replace, statusNote, table } from '../ui.js';

const pageSize = 50;

export async function mount(root, { params, signal }) {
  const selected = params.get('task');
  const list = h('div', { class: 'card', 'aria-live': 'polite' });
  const task = h('div', {});
  root.append(h('h1', { id: 'page-title' }, 'ETL'), list, selected ? task : null);
  const view = selected ? taskView(task, selected, signal) : null;

  await every(2000, signal, async () => {
    let tasks;
    try {
      tasks = await getJson('/etl', { signal });
    } catch (error) {
      if (error instanceof ApiError && !error.offline) { list.shown = null; replace(list, h('h2', {}, 'Tasks'), problemBox(error)); }
      throw error;
    }
    renderList(list, tasks, selected);
    if (view) await view.refresh(tasks.find((candidate) => candidate.name === selected));
  });
}

function stateCell(status) {
  const state = status?.state ?? 'unknown';
  return h('span', { class: state === 'Running' ? 'good' : state === 'Retrying' ? 'warn' : 'bad' }, state);
}

function lag(status) {
  if (!status) return '–';
  return status.lagChanges === 0 ? 'caught up' : `${formatNumber(status.lagChanges)} changes, ${formatNumber(Math.round(status.lagSeconds))} s`;
}

/** The last delivery failure: in red while the task retries, muted (and said to be past) once it runs again. */
function lastError(status) {
  if (!status?.lastError) return '';
  const text = `${status.lastError} (${formatTime(status.lastErrorTime)})`;
  return status.state === 'Running' ? h('span', { class: 'muted break' }, `Before it recovered: ${text}`) : h('span', { class: 'bad break' }, text);
}

function renderList(list, tasks, selected) {
  // Rebuilt only when something changed, so a person's focus on a link stays put between polls.
  const text = JSON.stringify(tasks);
  if (list.shown === text) return;
  list.shown = text;
  const rows = tasks.map((task) => [
    h('a', { class: 'nowrap', href: `#/etl?${new URLSearchParams({ task: task.name })}`, 'aria-current': task.name === selected ? 'true' : null }, task.name),
    stateCell(task.status),
    h('span', { class: 'break' }, task.status?.destination ?? '–'),
    (task.definition?.collections ?? []).join(', '),
    lag(task.status),
    formatNumber(task.status?.messagesSent),
    formatNumber(Math.round((task.status?.messagesPerSecond ?? 0) * 10) / 10),
    formatNumber(task.status?.errors),
    lastError(task.status),
  ]);
  replace(list,
    h('h2', {}, 'Tasks'),
    tasks.length === 0 ? h('p', { class: 'muted' }, 'No ETL task: define one with PUT /etl/{name} or under Ingest:Etl in the configuration (see docs/etl.md).') : null,
    table('ETL tasks', ['Task', 'State', 'Destination', 'Collections', 'Lag', 'Sent', 'Per second', 'Failed documents', 'Last delivery error'], rows,
      { numeric: ['Sent', 'Per second', 'Failed documents'] }));
}

/** The chosen task: its figures, reset, and its failed documents with a retry each. */
function taskView(element, name, signal) {
  const facts = h('div', {});
  const errors = h('div', {});
  const paging = h('div', { class: 'actions' });
  const resetOutcome = h('div', { 'aria-live': 'polite' });
  const rowOutcomes = new Map(); // error id -> the outcome shown in its row, kept across refreshes
  let start = 0;
  const earlier = [];
  let shown = ''; // the page last rendered: rows are rebuilt only when it changes, so focus stays on a person's button
  let retrying = 0;

  const etagField = labelled('Send again every change after etag', (id) => h('input', { id, type: 'number', min: '0', step: '1', value: '0', inputmode: 'numeric' }),
    '0 sends everything again.');
  const resetForm = h('form', { class: 'actions', 'aria-label': `Reset task ${name}` }, etagField.field, h('button', { type: 'submit', class: 'danger' }, 'Reset task'));
  resetForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const etag = etagField.input.value || '0';
    if (!await confirmAction(`Reset ETL task "${name}"? Every change after etag ${etag} is sent again to its destination.`, 'Reset')) return;
    try {
      await request('POST', `/etl/${encodeURIComponent(name)}/reset?etag=${encodeURIComponent(etag)}`, { signal });
      replace(resetOutcome, statusNote(`Task "${name}" sends every change after etag ${etag} again.`));
    } catch (error) {
      replace(resetOutcome, problemBox(error));
    }
  });

  replace(element,
    h('section', { class: 'card', 'aria-labelledby': 'task-title' }, h('h2', { id: 'task-title' }, `Task ${name}`), facts, resetForm, resetOutcome),
    h('section', { class: 'card', 'aria-labelledby': 'errors-title' }, h('h2', { id: 'errors-title' }, 'Failed documents'),
      h('p', { class: 'hint' }, 'Documents the transform failed on. Fix the document or the script, then retry: the document is transformed and sent again.'),
      errors, paging));

  async function retry(error, cell) {
    retrying += 1;
    replace(cell, h('span', { class: 'muted' }, 'Retrying…'));
    try {
      const { json } = await sendJson('POST', `/etl/${encodeURIComponent(name)}/errors/${error.id}/retry`, null, { signal });
      rowOutcomes.set(error.id, statusNote(json.messagesSent > 0 ? `Sent (${json.messagesSent} message${json.messagesSent === 1 ? '' : 's'}).` : `Done: ${json.outcome}.`));
    } catch (failure) {
      rowOutcomes.set(error.id, problemBox(failure));
    } finally {
      retrying -= 1;
    }
    replace(cell, rowOutcomes.get(error.id));
    shown = '';
  }

  async function loadErrors() {
    let page;
    try {
      page = await getJson(`/etl/${encodeURIComponent(name)}/errors?start=${start}&pageSize=${pageSize}`, { signal });
    } catch (error) {
      if (error instanceof ApiError && !error.offline) replace(errors, problemBox(error));
      throw error;
    }
    const text = JSON.stringify(page);
    if (text === shown) return;
    shown = text;
    const ids = new Set(page.items.map((item) => item.id));
    const rows = page.items.map((item) => {
      const cell = h('div', {}, rowOutcomes.get(item.id) ?? null);
      return [
        h('code', {}, item.documentId), item.collection, formatNumber(item.etag), h('span', { class: 'bad' }, item.error),
        formatTime(item.time), formatNumber(item.attempts),
        h('div', {}, h('button', { type: 'button', 'aria-label': `Retry ${item.documentId}`, onclick: () => retry(item, cell) }, 'Retry'), cell),
      ];
    });
    // A retried document that left the list: its outcome stays, said once above the table.
    const gone = [...rowOutcomes.keys()].filter((id) => !ids.has(id));
    const goneNotes = gone.map((id) => rowOutcomes.get(id));
    replace(errors,
      goneNotes.length ? h('div', {}, goneNotes) : null,
      table(`Failed documents of ${name}`, ['Document', 'Collection', 'Etag', 'Error', 'Last failed', 'Attempts', 'Retry'], rows, { numeric: ['Etag', 'Attempts'] }));
    replace(paging,
      earlier.length ? h('button', { type: 'button', class: 'quiet', onclick: () => { start = earlier.pop(); shown = ''; loadErrors(); } }, 'Previous page') : null,
      page.next !== null && page.next !== undefined ? h('button', { type: 'button', class: 'quiet', onclick: () => { earlier.push(start); start = page.next; shown = ''; loadErrors(); } }, 'Next page') : null);
  }

  return {
    async refresh(task) {
      if (!task) {
        replace(facts, problemBox({ status: 404, problem: { title: 'ETL task not found', detail: `There is no ETL task named '${name}'.` } }));
        return;
      }
      const status = task.status ?? {};
      replace(facts, h('dl', { class: 'facts' },
        h('dt', {}, 'State'), h('dd', {}, stateCell(status)),
        h('dt', {}, 'Defined in'), h('dd', {}, task.origin === 'configuration' ? 'the configuration (Ingest:Etl)' : 'the HTTP API'),
        h('dt', {}, 'Destination'), h('dd', {}, status.destination ?? '–'),
        h('dt', {}, 'Sent up to etag'), h('dd', {}, `${formatNumber(status.lastSentEtag)} of ${formatNumber(status.lastEtag)}`),
        h('dt', {}, 'Lag'), h('dd', {}, lag(status)),
        h('dt', {}, 'Messages sent'), h('dd', {}, `${formatNumber(status.messagesSent)} (${formatNumber(Math.round((status.messagesPerSecond ?? 0) * 10) / 10)} per second)`),
        h('dt', {}, 'Last delivery error'), h('dd', {}, lastError(status) || 'none')),
      h('details', {}, h('summary', {}, 'Definition as JSON'), h('pre', { class: 'json' }, JSON.stringify(task.definition, null, 2))));
      // Re-rendering the rows while a retry is under way would drop its outcome's cell: skip this round.
      if (retrying === 0) await loadErrors();
    },
  };
}
