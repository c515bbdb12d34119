// The console's only way to the server: the public HTTP API, with the key from the login form in X-Api-Key.
// The key lives in sessionStorage (gone when the tab closes), never in a URL.

const keyName = 'ingest.console.apiKey';
const listeners = new Set();
let connection = { state: 'unknown', since: null, detail: '' };

/** An answer that was not 2xx, or no answer at all (status 0, offline). problem is the problem+json body. */
export class ApiError extends Error {
  constructor(status, problem, response) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.response = response;
  }

  get offline() { return this.status === 0; }
}

export const session = {
  get key() { return sessionStorage.getItem(keyName); },
  set key(value) {
    if (value) sessionStorage.setItem(keyName, value); else sessionStorage.removeItem(keyName);
  },
};

/** Calls fn({ state: 'online' | 'offline' | 'unauthorized', since: Date, detail }) whenever the server's state changes. */
export function onConnectionChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function connectionState() { return connection; }

function report(state, detail = '') {
  if (connection.state === state) return;
  connection = { state, since: new Date(), detail };
  for (const fn of listeners) fn(connection);
}

async function readProblem(response) {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text);
    if (body && typeof body === 'object') return body;
  } catch { /* not JSON: fall through */ }
  return { title: `HTTP ${response.status} ${response.statusText}`.trim(), detail: text.slice(0, 500), status: response.status };
}

/**
 * Sends a request and returns the Response when it is 2xx (or 304); throws ApiError otherwise.
 * body: a string is sent as is (JSON unless headers say otherwise), anything else as JSON.
 */
export async function request(method, path, { body, headers, signal } = {}) {
  const sent = new Headers(headers);
  const key = session.key;
  if (key) sent.set('X-Api-Key', key);
  if (body !== undefined && body !== null) {
    if (typeof body !== 'string') body = JSON.stringify(body);
    if (!sent.has('Content-Type')) sent.set('Content-Type', 'application/json');
  }

  let response;
  try {
    response = await fetch(path, { method, headers: sent, body: body ?? undefined, signal, cache: 'no-store' });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    report('offline', error.message);
    throw new ApiError(0, { title: 'The server is not answering', detail: `${method} ${path} got no answer (${error.message}).` }, null);
  }

  if (response.status === 401) {
    report('unauthorized');
  } else {
    report('online');
  }

  if (!response.ok && response.status !== 304) {
    throw new ApiError(response.status, await readProblem(response), response);
  }

  return response;
}

/** GET path and parse its JSON body (null for 204). */
export async function getJson(path, options) {
  const response = await request('GET', path, options);
  return response.status === 204 ? null : response.json();
}

/** method path with a JSON body; returns { json, response } (json null when the answer has no body). */
export async function sendJson(method, path, body, options = {}) {
  const response = await request(method, path, { ...options, body });
  const text = await response.text();
  return { json: text ? JSON.parse(text) : null, response };
}

/** A catch-all route's value (document ids, index names: they may hold '/') with each segment percent-encoded. */
export function encodeRest(value) {
  return value.split('/').map(encodeURIComponent).join('/');
}
