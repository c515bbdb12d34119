// Documents: choose a collection, browse it page by page (GET /docs?collection=&start=&pageSize=, in etag order,
// `next` being the following page's start), open a document (GET /docs/{id}: the body, ETag, Last-Modified and
// X-Ingest-Collection), edit and save it (PUT with If-Match: the etag it was opened at, so a change made meanwhile
// is a 412 shown with its detail, never overwritten), and delete it. The route carries the state:
// #/documents?collection=Orders&start=120&id=orders/1, so a reload or a shared link opens the same view.

import { ApiError, encodeRest, getJson, request } from '../api.js';
import { confirmAction, formatBytes, formatTime, h, labelled, problemBox, replace, table } from '../ui.js';

const pageSize = 25;
// The starts of the pages before the current one, per collection: the API pages forward only.
const previousStarts = new Map();

export async function mount(root, { params, signal, navigate }) {
  const collection = params.get('collection') ?? '';
  const start = params.get('start') ?? '';
  const id = params.get('id') ?? '';
  const go = (next) => navigate('documents', Object.fromEntries(Object.entries(next).filter(([, value]) => value !== '' && value !== null && value !== undefined)));

  root.append(h('h1', { id: 'page-title' }, 'Documents'));
  const chooser = h('div', { class: 'card' });
  const listCard = h('section', { class: 'card', 'aria-labelledby': 'list-title' });
  const documentCard = h('section', { class: 'card document', 'aria-labelledby': 'document-title' });
  root.append(chooser, h('div', { class: 'split' }, listCard, documentCard));

  await renderChooser(chooser, collection, signal, (name) => {
    previousStarts.delete(name);
    go({ collection: name });
  });
  if (!collection && !id) {
    listCard.remove();
    documentCard.remove();
    return;
  }
  if (collection) {
    await renderList(listCard, { collection, start, id, deleted: params.get('deleted'), signal, go });
  } else {
    listCard.remove();
  }
  if (id) {
    await renderDocument(documentCard, { id, collection, start, signal, go });
    documentCard.querySelector('#document-title')?.focus();
  } else {
    documentCard.remove();
    // Paging moves focus to the page of documents it opened.
    if (start || params.has('deleted')) listCard.querySelector('#list-title')?.focus();
  }
}

async function renderChooser(card, current, signal, choose) {
  let names = [];
  try {
    const stats = await getJson('/stats', { signal });
    names = (stats.collections ?? []).map((collection) => collection.name);
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    card.append(problemBox(error));
  }
  if (current && !names.includes(current)) names.push(current);
  const { field, input } = labelled('Collection', (fieldId) => h('select', { id: fieldId, name: 'collection' },
    h('option', { value: '' }, names.length === 0 ? 'No collections yet' : 'Choose a collection'),
    names.map((name) => h('option', { value: name, selected: name === current }, name))),
  'Documents are listed in the order they were last written (etag order).');
  input.addEventListener('change', () => { if (input.value) choose(input.value); });
  card.append(field);
}

async function renderList(card, { collection, start, id, deleted, signal, go }) {
  const title = h('h2', { id: 'list-title', tabindex: '-1' }, collection);
  card.append(title);
  if (deleted) card.append(h('p', { class: 'good', role: 'status' }, `Deleted ${deleted}.`));
  const query = new URLSearchParams({ collection, pageSize: String(pageSize) });
  if (start) query.set('start', start);
  let page;
  try {
    page = await getJson(`/docs?${query}`, { signal });
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    card.append(problemBox(error));
    return;
  }

  const stack = previousStarts.get(collection) ?? [];
  // Arriving at the first page (a fresh choice or a shared link) forgets the way back.
  if (!start) stack.length = 0;
  previousStarts.set(collection, stack);
  const rows = page.items.map((item) => [
    h('a', { href: `#/documents?${new URLSearchParams({ collection, ...(start ? { start } : {}), id: item.id })}`, 'aria-current': item.id === id ? 'true' : null }, item.id),
    String(item.etag),
    formatTime(item.lastModified),
    formatBytes(new TextEncoder().encode(JSON.stringify(item.document)).length),
  ]);
  const pageNumber = stack.length + 1;
  card.append(
    table(`${collection}, page ${pageNumber}`, ['Id', 'Etag', 'Last modified', 'Size'], rows, { numeric: ['Etag', 'Size'] }),
    h('nav', { class: 'actions pager', 'aria-label': 'Pages' },
      h('button', { type: 'button', class: 'quiet', disabled: stack.length === 0, onclick: () => { stack.length = 0; go({ collection }); } }, 'First page'),
      h('button', { type: 'button', class: 'quiet', disabled: stack.length === 0, onclick: () => { const back = stack.pop(); go({ collection, start: back }); } }, 'Previous page'),
      h('span', { class: 'muted' }, `Page ${pageNumber}, ${page.items.length} document${page.items.length === 1 ? '' : 's'}`),
      h('button', { type: 'button', disabled: page.next === null || page.next === undefined, onclick: () => { stack.push(start); go({ collection, start: String(page.next) }); } }, 'Next page')));
}

/** X-Ingest-Collection is plain, or RFC 8187 (UTF-8''...) for a name that is not ASCII. */
function decodeHeader(value) {
  if (!value) return '';
  return value.startsWith("UTF-8''") ? decodeURIComponent(value.slice(7)) : value;
}

async function readDocument(id, signal) {
  const response = await request('GET', `/docs/${encodeRest(id)}`, { signal });
  const text = await response.text();
  return {
    id,
    json: JSON.parse(text),
    etag: (response.headers.get('ETag') ?? '').replace(/"/g, ''),
    lastModified: response.headers.get('Last-Modified'),
    collection: decodeHeader(response.headers.get('X-Ingest-Collection')),
  };
}

async function renderDocument(card, { id, collection: listed, start, signal, go }) {
  let document;
  try {
    document = await readDocument(id, signal);
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    replace(card, h('h2', { id: 'document-title', tabindex: '-1' }, id), problemBox(error));
    return;
  }

  const status = h('div', { 'aria-live': 'polite' });
  const heading = h('h2', { id: 'document-title', tabindex: '-1' }, document.id);
  const view = () => {
    replace(card, heading,
      h('dl', { class: 'figures' },
        h('div', {}, h('dt', {}, 'Collection'), h('dd', {}, document.collection)),
        h('div', {}, h('dt', {}, 'Etag'), h('dd', { class: 'etag' }, document.etag)),
        h('div', {}, h('dt', {}, 'Last modified'), h('dd', {}, formatTime(document.lastModified)))),
      status,
      h('div', { class: 'actions' },
        h('button', { type: 'button', onclick: edit }, 'Edit'),
        h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete'),
        h('button', { type: 'button', class: 'quiet', onclick: () => go({ collection: listed, start }) }, 'Close')),
      h('pre', { class: 'json', tabindex: '0', 'aria-label': `The JSON of ${document.id}` }, JSON.stringify(document.json, null, 2)));
  };

  const edit = (text) => {
    const { field, input } = labelled('JSON', (fieldId) => h('textarea', { id: fieldId, class: 'code editor', spellcheck: 'false', rows: '18' }),
      `Saved with If-Match: "${document.etag}": if the document changed since it was opened, nothing is overwritten.`);
    input.value = typeof text === 'string' ? text : JSON.stringify(document.json, null, 2);
    const error = h('div', { 'aria-live': 'assertive' });
    const save = async () => {
      replace(error);
      try {
        const response = await request('PUT', `/docs/${encodeRest(document.id)}?${new URLSearchParams({ collection: document.collection })}`,
          { body: input.value, headers: { 'If-Match': `"${document.etag}"` }, signal });
        const saved = await response.json();
        const edited = input.value;
        document = await readDocument(document.id, signal).catch(() => ({ ...document, json: JSON.parse(edited), etag: String(saved.etag) }));
        view();
        replace(status, h('p', { class: 'good saved', role: 'status' }, `Saved: the new etag is ${saved.etag}.`));
        heading.focus();
      } catch (failure) {
        if (failure?.name === 'AbortError') return;
        const conflict = failure instanceof ApiError && (failure.status === 412 || failure.status === 409);
        replace(error, problemBox(failure, conflict
          ? h('div', { class: 'actions' },
            h('p', {}, 'Your edit is still in the editor. Reload the current version to see what changed (your edit is then replaced), or copy your edit first.'),
            h('button', { type: 'button', onclick: reload }, 'Reload the current version'))
          : null));
        error.querySelector('.problem')?.setAttribute('tabindex', '-1');
        error.querySelector('.problem')?.focus();
      }
    };
    replace(card, heading, h('p', { class: 'muted' }, `${document.collection} · etag ${document.etag} · ${formatTime(document.lastModified)}`),
      field, error,
      h('div', { class: 'actions' },
        h('button', { type: 'button', onclick: save }, 'Save'),
        h('button', { type: 'button', class: 'quiet', onclick: view }, 'Cancel')));
    input.addEventListener('keydown', (event) => { if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); save(); } });
    input.focus();
  };

  const reload = async () => {
    try {
      document = await readDocument(document.id, signal);
      edit();
      replace(status);
    } catch (failure) {
      if (failure?.name === 'AbortError') return;
      card.append(problemBox(failure));
    }
  };

  const remove = async () => {
    if (!await confirmAction(`Delete ${document.id} from ${document.collection}? This cannot be undone.`, 'Delete')) return;
    try {
      await request('DELETE', `/docs/${encodeRest(document.id)}`, { headers: { 'If-Match': `"${document.etag}"` }, signal });
      go({ collection: listed || document.collection, start, deleted: document.id });
    } catch (failure) {
      if (failure?.name === 'AbortError') return;
      replace(status, problemBox(failure));
    }
  };

  view();
}
