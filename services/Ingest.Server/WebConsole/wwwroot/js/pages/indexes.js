// Indexes: every index with its state and staleness (GET /indexes, polled every 2 s), the chosen one's definition,
// progress and per-field counters (GET /indexes/{name}), reset and delete after a confirmation, and a form that
// defines a new index with PUT /indexes/{name}. The server is the form's validator: a refused definition's
// `errors` ({ field: "fields[1].path", message }) are shown beside the inputs they name, so the form can never
// accept what the server refuses nor refuse what it accepts.

import { ApiError, encodeRest, getJson, request, sendJson } from '../api.js';
import {
  clearInvalid, confirmAction, every, formatBytes, formatNumber, formatTime, h, labelled, markInvalid, problemBox,
  replace, statusNote, table,
} from '../ui.js';

const fieldTypes = ['keyword', 'text', 'number', 'datetime', 'bool'];

// An outcome to show once after navigating (e.g. "Index created") on the page mounted next.
let flash = null;

export async function mount(root, { params, signal, navigate }) {
  const selected = params.get('name');
  const list = h('div', { class: 'card', 'aria-live': 'polite' });
  const details = h('div', { class: 'card' });
  const outcome = h('div', {});
  if (flash) { replace(outcome, statusNote(flash)); flash = null; }

  root.append(
    h('h1', { id: 'page-title' }, 'Indexes'),
    outcome,
    list,
    selected ? details : null,
    defineForm(signal, (name, text) => { flash = text; navigate('indexes', { name }); }));

  const view = selected ? detailsView(details, selected, { signal, navigate }) : null;
  await every(2000, signal, async () => {
    try {
      const answer = await getJson('/indexes', { signal });
      renderList(list, answer.items ?? [], selected);
    } catch (error) {
      if (error instanceof ApiError && !error.offline) { list.shown = null; replace(list, h('h2', {}, 'All indexes'), problemBox(error)); }
      throw error;
    }

    if (selected) {
      try {
        view.show(await getJson(`/indexes/${encodeRest(selected)}`, { signal }));
      } catch (error) {
        if (error instanceof ApiError && !error.offline) view.failed(error);
        throw error;
      }
    }
  });
}

function stateCell(index) {
  return h('span', { class: index.state === 'errored' ? 'bad' : index.state === 'rebuilding' ? 'warn' : null }, index.state);
}

function staleCell(index) {
  return index.stale
    ? h('span', { class: 'warn' }, `stale: ${formatNumber(index.collectionsLastEtag - index.lastIndexedEtag)} changes behind`)
    : 'up to date';
}

function renderList(list, items, selected) {
  const text = JSON.stringify(items);
  if (list.shown === text) return;
  list.shown = text;
  const rows = items.map((index) => [
    h('a', { href: `#/indexes?${new URLSearchParams({ name: index.name })}`, 'aria-current': index.name === selected ? 'true' : null }, index.name),
    index.automatic ? 'automatic' : 'static',
    stateCell(index),
    staleCell(index),
    `${formatNumber(index.lastIndexedEtag)} / ${formatNumber(index.collectionsLastEtag)}`,
    formatNumber(index.entries),
    index.error ? h('span', { class: 'bad' }, index.error) : '',
  ]);
  replace(list,
    h('h2', {}, 'All indexes'),
    items.length === 0 ? h('p', { class: 'muted' }, 'No index yet: define one below, or run a query on a collection (it makes the index it needs).') : null,
    table('Indexes', ['Name', 'Kind', 'State', 'Staleness', 'Indexed etag / last', 'Entries', 'Error'], rows,
      { numeric: ['Entries', 'Indexed etag / last'] }));
}

/** Keeps the chosen index's card: its figures re-rendered when they change, its buttons built once (focus stays). */
function detailsView(details, name, { signal, navigate }) {
  const figures = h('div', {});
  const outcome = h('div', { 'aria-live': 'polite' });
  const reset = h('button', { type: 'button', class: 'quiet' }, 'Reset index');
  reset.addEventListener('click', async () => {
    if (!await confirmAction(`Reset index "${name}"? It is rebuilt from the first document, side by side; queries keep using the current build until the new one has caught up.`, 'Reset')) return;
    try {
      await request('POST', `/indexes/${encodeRest(name)}/reset`, { signal });
      replace(outcome, statusNote(`Index "${name}" is being rebuilt from the first document.`));
    } catch (error) {
      replace(outcome, problemBox(error));
    }
  });
  const remove = h('button', { type: 'button', class: 'danger' }, 'Delete index');
  remove.addEventListener('click', async () => {
    if (!await confirmAction(`Delete index "${name}"? Its definition and data are removed; queries that name it fail until it is defined again.`, 'Delete')) return;
    try {
      await request('DELETE', `/indexes/${encodeRest(name)}`, { signal });
      flash = `Index "${name}" was deleted.`;
      navigate('indexes', {});
    } catch (error) {
      replace(outcome, problemBox(error));
    }
  });
  replace(details, h('h2', {}, `Index ${name}`), figures, h('div', { class: 'actions' }, reset, remove), outcome);
  let shown = '';

  return {
    failed(error) { shown = ''; replace(figures, problemBox(error)); },
    show(index) {
      const text = JSON.stringify(index);
      if (text === shown) return;
      shown = text;
      const definition = index.definition ?? {};
      const counters = new Map((index.fields ?? []).map((field) => [field.name, field]));
      const fieldRows = (definition.fields ?? []).map((field) => [
        field.name, h('code', {}, field.path), field.type, field.exactCase ? 'yes' : 'no',
        formatNumber(counters.get(field.name)?.wrongType), formatNumber(counters.get(field.name)?.nulls),
      ]);
      const batches = index.batches ?? {};
      replace(figures,
        h('dl', { class: 'facts' },
          h('dt', {}, 'Collections'), h('dd', {}, (definition.collections ?? []).join(', ')),
          h('dt', {}, 'State'), h('dd', {}, stateCell(index)),
          h('dt', {}, 'Staleness'), h('dd', {}, staleCell(index)),
          h('dt', {}, 'Indexed etag'), h('dd', {}, `${formatNumber(index.lastIndexedEtag)} of ${formatNumber(index.collectionsLastEtag)}`),
          h('dt', {}, 'Entries'), h('dd', {}, formatNumber(index.entries)),
          h('dt', {}, 'Batches'), h('dd', {}, `${formatNumber(batches.batchesClosed)} closed; the last took ${formatNumber(batches.lastBatchDocuments)} documents at ${formatTime(batches.lastBatchAt)}; peak memory ${formatBytes(batches.peakBatchMemoryBytes)}`),
          index.pendingRebuild ? [h('dt', {}, 'Rebuilding'), h('dd', {}, `a new build has indexed up to etag ${formatNumber(index.pendingRebuild.lastIndexedEtag)}`)] : null,
          index.error ? [h('dt', {}, 'Error'), h('dd', { class: 'bad' }, index.error)] : null),
        table(`Fields of ${index.name}`, ['Field', 'Path', 'Type', 'Exact case', 'Wrong type', 'Nulls'], fieldRows, { numeric: ['Wrong type', 'Nulls'] }),
        h('p', { class: 'hint' }, 'Wrong type: values skipped because they are not of the field\'s type. Nulls: documents where the path is missing or null (indexed as null).'),
        h('details', {}, h('summary', {}, 'Definition as JSON'), h('pre', { class: 'json' }, JSON.stringify(definition, null, 2))));
    },
  };
}

/** The form defining an index: name, collections, and one row (name, path, type, exact case) per field. */
function defineForm(signal, defined) {
  const nameField = labelled('Name', (id) => h('input', { id, name: 'name', required: true, autocomplete: 'off', spellcheck: 'false' }),
    '1-128 letters, digits, /, -, _ and . (e.g. Orders/ByCustomer).');
  const collectionsField = labelled('Collections', (id) => h('input', { id, name: 'collections', required: true, autocomplete: 'off', spellcheck: 'false' }),
    'One or more, separated by commas (e.g. Orders).');
  const rows = h('div', {});
  const fieldset = h('fieldset', {}, h('legend', {}, 'Fields'), rows);
  const outcome = h('div', { 'aria-live': 'polite' });
  const addRow = (focus) => {
    const number = rows.children.length + 1;
    const row = fieldRow(number, () => {
      if (rows.children.length > 1) { row.remove(); renumber(rows); }
    });
    rows.append(row);
    if (focus) row.querySelector('input').focus();
  };
  addRow(false);

  const form = h('form', { class: 'card', 'aria-labelledby': 'define-title', novalidate: false },
    h('h2', { id: 'define-title' }, 'Define an index'),
    nameField.field,
    collectionsField.field,
    fieldset,
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'quiet', onclick: () => addRow(true) }, 'Add field'),
      h('button', { type: 'submit' }, 'Define index')),
    outcome);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearInvalid(form);
    replace(outcome);
    const name = nameField.input.value.trim();
    const body = {
      collections: collectionsField.input.value.split(',').map((collection) => collection.trim()).filter(Boolean),
      fields: [...rows.children].map((row) => ({
        name: row.inputs.name.value.trim(),
        path: row.inputs.path.value.trim(),
        type: row.inputs.type.value,
        exactCase: row.inputs.exactCase.checked,
      })),
    };
    try {
      const { json, response } = await sendJson('PUT', `/indexes/${encodeRest(name)}`, body, { signal });
      const said = { created: 'created', rebuilding: 'redefined: it is being rebuilt side by side', unchanged: 'unchanged (the same definition)' };
      defined(name, `Index "${json?.name ?? name}" ${said[json?.outcome] ?? json?.outcome ?? `answered ${response.status}`}.`);
    } catch (error) {
      showRefusal(error, { form, outcome, name: nameField.input, collections: collectionsField.input, fieldset, rows });
    }
  });
  return form;
}

function fieldRow(number, remove) {
  const name = labelled(`Field ${number} name`, (id) => h('input', { id, required: true, autocomplete: 'off', spellcheck: 'false' }));
  const path = labelled(`Field ${number} path`, (id) => h('input', { id, required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'customer.name, lines[].sku' }));
  const type = labelled(`Field ${number} type`, (id) => h('select', { id }, fieldTypes.map((value) => h('option', { value }, value))));
  const exactId = `${name.input.id}-exact`;
  const exactCase = h('input', { type: 'checkbox', id: exactId });
  const row = h('div', { class: 'row-fields', role: 'group', 'aria-label': `Field ${number}` },
    name.field, path.field, type.field,
    h('div', { class: 'field check' }, exactCase, h('label', { for: exactId }, 'Exact case')),
    h('div', { class: 'row-end' }, h('button', { type: 'button', class: 'quiet', onclick: remove }, `Remove field ${number}`)));
  row.inputs = { name: name.input, path: path.input, type: type.input, exactCase };
  return row;
}

function renumber(rows) {
  [...rows.children].forEach((row, index) => {
    const number = index + 1;
    row.setAttribute('aria-label', `Field ${number}`);
    for (const label of row.querySelectorAll('label')) label.textContent = label.textContent.replace(/^Field \d+/, `Field ${number}`);
    const button = row.querySelector('.row-end button');
    button.textContent = `Remove field ${number}`;
  });
}

/**
 * A refused definition: each of the problem's errors beside the input its `field` names (name, collections,
 * fields[i].name|path|type, fields[i] or fields), the rest in the form's problem box; any other failure there too.
 */
function showRefusal(error, { outcome, name, collections, fieldset, rows }) {
  const errors = Array.isArray(error?.problem?.errors) ? error.problem.errors : [];
  if (errors.length === 0) {
    replace(outcome, problemBox(error));
    return;
  }

  const unplaced = [];
  let first = null;
  for (const { field = '', message = '' } of errors) {
    const target = inputFor(field, { name, collections, rows });
    if (target) {
      markInvalid(target, message);
      first ??= target;
    } else if (field === 'fields') {
      fieldset.append(h('p', { class: 'field-error' }, message));
    } else {
      unplaced.push(h('li', {}, field && field !== '$' ? `${field}: ${message}` : message));
    }
  }

  const count = errors.length === 1 ? '1 problem' : `${errors.length} problems`;
  replace(outcome, problemBox(
    { status: error.status, problem: { title: error.problem.title ?? 'Definition refused', detail: `The server found ${count}; nothing was stored. ${unplaced.length ? '' : 'Each is shown beside its field.'}` } },
    unplaced.length ? h('ul', {}, unplaced) : null));
  first?.focus();
}

function inputFor(field, { name, collections, rows }) {
  if (field === 'name') return name;
  if (field === 'collections' || field.startsWith('collections[')) return collections;
  const match = /^fields\[(\d+)\](?:\.(name|path|type|exactCase))?$/.exec(field);
  if (!match) return null;
  const row = rows.children[Number(match[1])];
  if (!row) return null;
  return row.inputs[match[2] ?? 'name'];
}
