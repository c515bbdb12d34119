// Query: an editor for the query language with its parameters, Run (POST /queries) and Explain (GET
// /queries/explain), the results as a table and, for `group by time(...)`, as a chart, paging by the answer's
// continuation, and export through the API's own formats (GET /queries?format=csv and format=rows). A 400 names the
// error's line, column and offset: the page shows it under the editor with a marker under that column and puts the
// cursor there. The route keeps the query and its parameters (#/query?q=...&p.min=10, as GET /queries takes them).

import { ApiError, getJson, request, sendJson } from '../api.js';
import { lineChart } from '../chart.js';
import { download, formatNumber, h, labelled, nextId, problemBox, replace, table } from '../ui.js';

const example = 'from Orders limit 20';
const maxDocumentColumns = 12;
const waitSeconds = 5;

export async function mount(root, { params, signal }) {
  const { field: queryField, input: editor } = labelled('Query', (id) => h('textarea', {
    id, class: 'code editor', spellcheck: 'false', rows: '6', autocapitalize: 'off', autocomplete: 'off',
  }), 'Ctrl+Enter runs. e.g. from Orders where Total > $min order by Total desc limit 50');
  editor.value = params.get('q') ?? example;
  const hintIds = editor.getAttribute('aria-describedby');
  const errorBox = h('div', { id: nextId('query-error') });
  const parameterRows = h('div', { class: 'parameters' });
  const results = h('section', { class: 'results', 'aria-labelledby': 'results-title', tabindex: '-1' });
  const buttons = {
    run: h('button', { type: 'submit' }, 'Run'),
    explain: h('button', { type: 'button', class: 'quiet', onclick: () => explain() }, 'Explain'),
    csv: h('button', { type: 'button', class: 'quiet', onclick: () => exportAs('csv') }, 'Export CSV'),
    json: h('button', { type: 'button', class: 'quiet', onclick: () => exportAs('rows') }, 'Export JSON'),
  };
  // A new automatic index answers its first query before it has read anything: wait for it by default.
  const waitId = nextId('wait');
  const wait = h('input', { id: waitId, type: 'checkbox', checked: params.get('waitForNonStale') !== 'false' });
  const form = h('form', { class: 'card query-form', 'aria-label': 'Query editor' },
    queryField, errorBox,
    h('fieldset', {}, h('legend', {}, 'Parameters'), parameterRows,
      h('button', { type: 'button', class: 'quiet', onclick: () => addParameter('', '', true) }, 'Add parameter')),
    h('div', { class: 'check' }, wait, h('label', { for: waitId }, `Wait up to ${waitSeconds} s for a stale index to catch up`)),
    h('div', { class: 'actions' }, buttons.run, buttons.explain, buttons.csv, buttons.json),
    h('p', { class: 'hint' }, 'Exports run the query again as GET /queries?format=csv or format=rows answers it: every row up to its limit, not only the page shown.'));
  root.append(h('h1', { id: 'page-title' }, 'Query'), form, results);

  for (const [key, value] of params) {
    if (key.startsWith('p.') && key.length > 2) addParameter(key.slice(2), value);
  }

  // The continuations of the pages before the current one ('' is the first page).
  let pages = [];

  form.addEventListener('submit', (event) => { event.preventDefault(); run(null, []); });
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); run(null, []); }
  });
  editor.addEventListener('input', () => editor.removeAttribute('aria-invalid'));

  if (params.get('q')) await run(null, [], { focus: false });

  function addParameter(name, value, focus = false) {
    const row = h('div', { class: 'parameter' });
    const nameField = labelled('Name', (id) => h('input', { id, name: 'parameterName', value: name, placeholder: 'min', autocomplete: 'off', spellcheck: 'false' }));
    const valueField = labelled('Value', (id) => h('input', { id, name: 'parameterValue', value, placeholder: '10', autocomplete: 'off', spellcheck: 'false' }));
    row.append(nameField.field, valueField.field,
      h('button', { type: 'button', class: 'quiet', 'aria-label': `Remove parameter ${name}`.trim(), onclick: () => { row.remove(); editor.focus(); } }, 'Remove'));
    nameField.input.addEventListener('input', () => row.lastChild.setAttribute('aria-label', `Remove parameter ${nameField.input.value}`.trim()));
    parameterRows.append(row);
    if (focus) nameField.input.focus();
  }

  /** [[name, text]] of the filled-in parameter rows ($ optional in the name). */
  function parameterTexts() {
    return [...parameterRows.querySelectorAll('.parameter')]
      .map((row) => [row.querySelector('[name=parameterName]').value.trim().replace(/^\$/, ''), row.querySelector('[name=parameterValue]').value])
      .filter(([name]) => name !== '');
  }

  /** A value is JSON when it reads as JSON, else a string: the API's rule for p.NAME. */
  function parameterObject() {
    const result = {};
    for (const [name, text] of parameterTexts()) {
      try { result[name] = JSON.parse(text); } catch { result[name] = text; }
    }
    return result;
  }

  function queryString(extra = {}) {
    const search = new URLSearchParams({ q: editor.value });
    for (const [name, text] of parameterTexts()) search.set(`p.${name}`, text);
    if (wait.checked) search.set('waitForNonStale', `${waitSeconds}s`);
    for (const [name, value] of Object.entries(extra)) search.set(name, value);
    return search;
  }

  function rememberInRoute() {
    // replaceState: a new query is not a new history entry, and the page is not mounted again.
    const search = queryString();
    if (!wait.checked) search.set('waitForNonStale', 'false'); // the box is ticked by default
    history.replaceState(null, '', `#/query?${search}`);
  }

  function busy(on) {
    for (const button of Object.values(buttons)) button.disabled = on;
    results.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  function clearError() {
    replace(errorBox);
    editor.removeAttribute('aria-invalid');
    editor.setAttribute('aria-describedby', hintIds);
  }

  /** A 400 with a position: the problem, "line L, column C", the line with a marker under the column, and the cursor there. */
  function showError(error) {
    const problem = error?.problem ?? {};
    if (error instanceof ApiError && error.status === 400 && Number.isInteger(problem.line) && Number.isInteger(problem.column)) {
      const lines = editor.value.split('\n');
      const lineText = lines[problem.line - 1] ?? '';
      const marker = `${' '.repeat(Math.max(0, problem.column - 1))}^`;
      replace(errorBox, problemBox(error,
        h('p', { class: 'position' }, `At line ${problem.line}, column ${problem.column}.`),
        h('pre', { class: 'error-marker', 'aria-hidden': 'true' }, `${lineText}\n${marker}`)));
      editor.setAttribute('aria-invalid', 'true');
      // The error is read with the editor: its hint and then the problem.
      editor.setAttribute('aria-describedby', `${hintIds} ${errorBox.id}`);
      const offset = Number.isInteger(problem.offset) ? problem.offset : offsetOf(lines, problem.line, problem.column);
      editor.focus();
      editor.setSelectionRange(offset, Math.min(offset + 1, editor.value.length));
    } else {
      replace(errorBox, problemBox(error));
      const box = errorBox.firstChild;
      box.setAttribute('tabindex', '-1');
      box.focus();
    }
  }

  async function run(continuation, previous, { focus = true } = {}) {
    clearError();
    rememberInRoute();
    busy(true);
    try {
      const { json } = await sendJson('POST', '/queries', { query: editor.value, parameters: parameterObject(), continuation, waitForNonStale: wait.checked ? `${waitSeconds}s` : null }, { signal });
      pages = previous;
      renderResults(json, continuation);
      if (focus) results.focus();
    } catch (error) {
      if (error?.name === 'AbortError') return;
      showError(error);
    } finally {
      busy(false);
    }
  }

  async function explain() {
    clearError();
    rememberInRoute();
    busy(true);
    try {
      const answer = await getJson(`/queries/explain?${queryString()}`, { signal });
      replace(results, h('h2', { id: 'results-title' }, 'Plan'),
        h('p', {}, 'Answered by the index ', h('code', {}, answer.indexName), ', without running the query.'),
        h('pre', { class: 'json', tabindex: '0', 'aria-label': 'The query plan' }, JSON.stringify(answer.plan, null, 2)));
      results.focus();
    } catch (error) {
      if (error?.name === 'AbortError') return;
      showError(error);
    } finally {
      busy(false);
    }
  }

  async function exportAs(format) {
    clearError();
    busy(true);
    try {
      const response = await request('GET', `/queries?${queryString({ format })}`, { signal });
      const text = await response.text();
      download(format === 'csv' ? 'query.csv' : 'query.json', format === 'csv' ? 'text/csv' : 'application/json', text);
    } catch (error) {
      if (error?.name === 'AbortError') return;
      showError(error);
    } finally {
      busy(false);
    }
  }

  function renderResults(answer, continuation) {
    const rows = answer.results ?? [];
    const pageNumber = pages.length + 1;
    const summary = `${formatNumber(rows.length)} of ${formatNumber(answer.totalResults)} results from index ${answer.indexName}`
      + `${answer.indexCreated ? ' (created for this query)' : ''} in ${formatNumber(answer.durationMs)} ms${answer.isStale ? '; the index is stale' : ''}.`;
    const { columns, cells, numeric } = tabulate(rows);
    const timeChart = isTimeQuery(editor.value) ? timeSeries(rows, columns, numeric) : null;
    replace(results,
      h('h2', { id: 'results-title' }, 'Results'),
      h('p', { class: 'summary', role: 'status' }, summary),
      (answer.warnings ?? []).map((warning) => h('p', { class: 'warn' }, warning)),
      timeChart ? lineChart(timeChart, { label: 'The query\'s time buckets', width: 800 }) : null,
      table(`Results, page ${pageNumber}`, columns, cells, { numeric }),
      h('nav', { class: 'actions pager', 'aria-label': 'Result pages' },
        h('button', { type: 'button', class: 'quiet', disabled: pages.length === 0, onclick: () => run(null, []) }, 'First page'),
        h('button', { type: 'button', class: 'quiet', disabled: pages.length === 0,
          onclick: () => { const back = pages.slice(0, -1); run(pages[pages.length - 1] || null, back); } }, 'Previous page'),
        h('span', { class: 'muted' }, `Page ${pageNumber}`),
        h('button', { type: 'button', disabled: !answer.continuation,
          onclick: () => run(answer.continuation, [...pages, continuation ?? '']) }, 'Next page')));
  }
}

function offsetOf(lines, line, column) {
  let offset = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  return offset + column - 1;
}

function isTimeQuery(text) { return /group\s+by\s+(?:[^]*?,\s*)?time\s*\(/i.test(text); }

function isDocumentRow(row) {
  return row && typeof row === 'object' && 'id' in row && 'etag' in row && 'document' in row;
}

function cellText(value) {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Columns and cells: documents as id, collection, etag and their top-level fields; other rows by their keys. */
function tabulate(rows) {
  const columns = [];
  const seen = new Set();
  const add = (name) => { if (!seen.has(name)) { seen.add(name); columns.push(name); } };
  const documents = rows.length > 0 && rows.every(isDocumentRow);
  if (documents) {
    ['Id', 'Collection', 'Etag'].forEach(add);
    for (const row of rows) {
      if (row.document && typeof row.document === 'object') {
        for (const key of Object.keys(row.document)) if (columns.length < 3 + maxDocumentColumns && key !== 'id' && key !== '@metadata') add(key);
      }
    }
  } else {
    for (const row of rows) for (const key of Object.keys(row ?? {})) add(key);
  }
  const numeric = columns.filter((column) => column !== 'Id' && rows.some((row) => typeof valueOf(row, column, documents) === 'number')
    && rows.every((row) => { const value = valueOf(row, column, documents); return value === null || value === undefined || typeof value === 'number'; }));
  const cells = rows.map((row) => columns.map((column) => {
    if (documents && column === 'Id') {
      return h('a', { href: `#/documents?${new URLSearchParams({ collection: row.collection, id: row.id })}` }, row.id);
    }
    const value = valueOf(row, column, documents);
    return typeof value === 'number' ? formatNumber(value) : cellText(value);
  }));
  return { columns, cells, numeric };
}

function valueOf(row, column, documents) {
  if (!documents) return row?.[column];
  if (column === 'Id') return row.id;
  if (column === 'Collection') return row.collection;
  if (column === 'Etag') return row.etag;
  return row.document?.[column];
}

/** For group by time(): one series per numeric column (and per other group key), x the bucket's time. */
function timeSeries(rows, columns, numeric) {
  const timeColumn = columns.find((column) => rows.every((row) => !Number.isNaN(Date.parse(row?.[column]))) && !numeric.includes(column));
  if (!timeColumn) return null;
  const keys = columns.filter((column) => column !== timeColumn && !numeric.includes(column));
  const series = new Map();
  for (const row of rows) {
    const group = keys.map((key) => cellText(row[key])).join(' · ');
    for (const column of numeric) {
      const name = group ? `${group} ${column}` : column;
      if (!series.has(name)) series.set(name, { name, points: [] });
      series.get(name).points.push([Date.parse(row[timeColumn]), row[column] ?? 0]);
    }
  }
  const list = [...series.values()];
  for (const entry of list) entry.points.sort((a, b) => a[0] - b[0]);
  return list.length > 0 ? list : null;
}
