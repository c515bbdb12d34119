// Small DOM helpers shared by the pages. Text always goes in as text nodes (never innerHTML), so a document's
// or a message's content can never become markup.

/** h('button', { type: 'button', onclick }, 'Save') builds an element; attributes starting with "on" are listeners. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      element.className = value;
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else if (value === true) {
      element.setAttribute(name, '');
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

let uniqueId = 0;
/** An id for label/aria wiring: prefix-N. */
export function nextId(prefix) { uniqueId += 1; return `${prefix}-${uniqueId}`; }

/** A labelled form field: returns { field, input }. input is the element made by make(id). */
export function labelled(text, make, hint) {
  const id = nextId('field');
  const input = make(id);
  input.id = id;
  const hintId = hint ? `${id}-hint` : null;
  if (hintId) input.setAttribute('aria-describedby', hintId);
  const field = h('div', { class: 'field' }, h('label', { for: id }, text), input, hint ? h('p', { class: 'hint', id: hintId }, hint) : null);
  return { field, input };
}

/**
 * The server's problem where the person acted: its title, detail and status, in an alert region.
 * error is an ApiError (or any Error); extra lines (e.g. "line 1, column 32") may be added by the caller.
 */
export function problemBox(error, ...extra) {
  const problem = error?.problem ?? { title: error?.message ?? String(error) };
  const status = error?.status ? ` (${error.status})` : '';
  return h('div', { class: 'problem', role: 'alert' },
    h('strong', {}, `${problem.title ?? 'Error'}${status}`),
    problem.detail && problem.detail !== problem.title ? h('p', {}, problem.detail) : null,
    ...extra);
}

/** A table from column names and rows (arrays of cell values or nodes), in a horizontally scrolling wrapper. */
export function table(caption, columns, rows, { numeric = [] } = {}) {
  const numericSet = new Set(numeric);
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    h('table', {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, columns.map((column) => h('th', { scope: 'col', class: numericSet.has(column) ? 'num' : null }, column)))),
      h('tbody', {}, rows.length === 0
        ? h('tr', {}, h('td', { colspan: String(Math.max(columns.length, 1)), class: 'muted' }, 'Nothing yet.'))
        : rows.map((row) => h('tr', {}, row.map((cell, index) => h('td', { class: numericSet.has(columns[index]) ? 'num' : null }, cell ?? '')))))));
}

/** Asks for confirmation in a modal dialog; resolves true when the person confirms. */
export function confirmAction(message, confirmLabel = 'Confirm') {
  return new Promise((resolve) => {
    const dialog = h('dialog', { class: 'confirm', 'aria-label': 'Confirm' },
      h('form', { method: 'dialog' },
        h('p', {}, message),
        h('div', { class: 'actions' },
          h('button', { value: 'cancel', type: 'submit', class: 'quiet' }, 'Cancel'),
          h('button', { value: 'confirm', type: 'submit', class: 'danger' }, confirmLabel))));
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

const numberFormat = new Intl.NumberFormat('en');
export function formatNumber(value) {
  return value === undefined || value === null || Number.isNaN(value) ? '–' : numberFormat.format(value);
}

export function formatBytes(bytes) {
  if (bytes === undefined || bytes === null) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export function formatTime(value) {
  if (!value) return '–';
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

/**
 * Runs tick() now and then every intervalMs until signal aborts. A failing tick keeps the loop going (the
 * shell shows the server as not answering; the page keeps its last figures). Returns a promise of the loop.
 */
export async function every(intervalMs, signal, tick) {
  while (!signal.aborted) {
    try {
      await tick();
    } catch (error) {
      if (error?.name === 'AbortError') return;
    }
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, intervalMs);
      signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
    });
  }
}

/** Offers text as a file download (CSV/JSON export). */
export function download(fileName, mediaType, text) {
  const url = URL.createObjectURL(new Blob([text], { type: mediaType }));
  const link = h('a', { href: url, download: fileName });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Shows message beside input (a refused form field): a text after the input, tied to it with aria-describedby
 * (kept alongside any hint), and aria-invalid on the input. clearInvalid(container) undoes every mark inside it.
 */
export function markInvalid(input, message) {
  const id = nextId('invalid');
  const note = h('p', { class: 'field-error', id }, message);
  input.setAttribute('aria-invalid', 'true');
  const described = (input.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
  input.setAttribute('aria-describedby', [...described, id].join(' '));
  input.after(note);
  return note;
}

export function clearInvalid(container) {
  for (const note of container.querySelectorAll('.field-error')) {
    const input = container.querySelector(`[aria-describedby~="${note.id}"]`);
    if (input) {
      const rest = input.getAttribute('aria-describedby').split(' ').filter((id) => id && id !== note.id);
      if (rest.length) input.setAttribute('aria-describedby', rest.join(' ')); else input.removeAttribute('aria-describedby');
      input.removeAttribute('aria-invalid');
    }
    note.remove();
  }
}

/** A short outcome said politely (role=status) where the person acted: "Index created." */
export function statusNote(text, ...extra) {
  return h('div', { class: 'note', role: 'status' }, text, ...extra);
}
