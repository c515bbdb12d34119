// The console's shell: login, navigation, the server's state, and the page router. Pages are ES modules under
// pages/ that export mount(root, context) and are loaded when first opened. The route is the URL's fragment
// (#/query?index=...), so a reload or a shared link opens the same page, and nothing of it reaches the server.

import { ApiError, getJson, onConnectionChange, session } from './api.js';
import { h, labelled, problemBox, replace } from './ui.js';

/** Every page: its route, its name in the navigation, and its module. */
const pages = [
  { route: 'overview', title: 'Overview', module: './pages/overview.js' },
  { route: 'documents', title: 'Documents', module: './pages/documents.js' },
  { route: 'query', title: 'Query', module: './pages/query.js' },
  { route: 'indexes', title: 'Indexes', module: './pages/indexes.js' },
  { route: 'sources', title: 'Sources', module: './pages/sources.js' },
  { route: 'etl', title: 'ETL', module: './pages/etl.js' },
];

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const banner = document.getElementById('banner');
const serverState = document.getElementById('server-state');
const logout = document.getElementById('logout');

let current = null; // { route, controller }

function parseRoute() {
  const fragment = location.hash.replace(/^#\/?/, '');
  const [route, query] = fragment.split('?', 2);
  return { route: route || pages[0].route, params: new URLSearchParams(query ?? '') };
}

/** Opens route with params (an object or URLSearchParams); replace: no new history entry. */
export function navigate(route, params = {}, { replace: replaceEntry = false } = {}) {
  const query = new URLSearchParams(params).toString();
  const hash = `#/${route}${query ? `?${query}` : ''}`;
  if (replaceEntry) history.replaceState(null, '', hash); else history.pushState(null, '', hash);
  render();
}

function renderNav(active) {
  replace(nav, h('ul', {}, pages.map((page) => h('li', {},
    h('a', { href: `#/${page.route}`, 'aria-current': page.route === active ? 'page' : null }, page.title)))));
  nav.hidden = false;
}

async function render() {
  const { route, params } = parseRoute();
  const page = pages.find((candidate) => candidate.route === route);
  current?.controller.abort();
  const controller = new AbortController();
  current = { route, controller };
  renderNav(page?.route);
  if (!page) {
    replace(main, h('h1', {}, 'No such page'), h('p', {}, `The console has no page "${route}". `, h('a', { href: '#/overview' }, 'Go to the overview.')));
    return;
  }

  document.title = `${page.title} · Ingest console`;
  const root = h('section', { class: 'page', 'aria-labelledby': 'page-title' });
  replace(main, root);
  try {
    const module = await import(page.module);
    if (controller.signal.aborted) return;
    await module.mount(root, { params, signal: controller.signal, navigate });
  } catch (error) {
    if (error?.name === 'AbortError' || controller.signal.aborted) return;
    // A page never goes blank: whatever failed is said where the page would be.
    root.append(h('h1', { id: 'page-title' }, page.title), problemBox(error instanceof ApiError ? error : { message: `This page failed: ${error?.message ?? error}` }));
  }
}

function showConnection({ state, since }) {
  serverState.className = `server-state ${state}`;
  if (state === 'offline') {
    serverState.textContent = 'Server not answering';
    banner.hidden = false;
    replace(banner, `The server has not answered since ${since.toLocaleTimeString()}. The figures shown are the last ones received; the console keeps trying.`);
  } else {
    serverState.textContent = state === 'online' ? 'Connected' : '';
    banner.hidden = true;
    if (state === 'unauthorized' && current) showLogin('The server no longer accepts this key. Log in again.');
  }
}

/** The login form: the key goes to sessionStorage and is checked with GET /health, which needs a valid key. */
function showLogin(message) {
  current?.controller.abort();
  current = null;
  nav.hidden = true;
  logout.hidden = true;
  document.title = 'Log in · Ingest console';
  const { field, input } = labelled('API key', (id) => h('input', { id, type: 'password', name: 'apiKey', autocomplete: 'current-password', required: true }),
    'The key from Ingest:ApiKey or Ingest:ApiKeys in the server\'s configuration. It is kept in this tab only.');
  const error = h('div', { class: 'form-error', 'aria-live': 'assertive' }, message ? problemBox({ message }) : null);
  const form = h('form', { class: 'login', 'aria-labelledby': 'login-title' },
    h('h1', { id: 'login-title' }, 'Log in to Ingest'),
    field,
    error,
    h('button', { type: 'submit' }, 'Log in'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    session.key = input.value.trim();
    try {
      await getJson('/health');
      start();
    } catch (failure) {
      // /health answers 503 with a body when the server is unhealthy; that still proves the key.
      if (failure instanceof ApiError && (failure.status === 503 || failure.status === 403)) { start(); return; }
      session.key = null;
      replace(error, problemBox(failure.status === 401 ? { message: 'That key was refused.', problem: { title: 'That key was refused', detail: failure.problem.detail } } : failure));
      input.focus();
    }
  });
  replace(main, form);
  input.focus();
}

function start() {
  logout.hidden = !session.key;
  if (!location.hash) history.replaceState(null, '', `#/${pages[0].route}`);
  render();
}

async function boot() {
  onConnectionChange(showConnection);
  window.addEventListener('popstate', () => { if (current) render(); });
  window.addEventListener('hashchange', () => { if (current) render(); });
  logout.addEventListener('click', () => { session.key = null; showLogin('Logged out.'); });
  try {
    await getJson('/health');
    start();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      showLogin(session.key ? 'The saved key was refused.' : null);
    } else if (error instanceof ApiError && (error.status === 503 || error.status === 403)) {
      start();
    } else {
      replace(main, h('h1', {}, 'Ingest console'), problemBox(error), h('button', { type: 'button', onclick: () => boot() }, 'Try again'));
    }
  }
}

boot();
