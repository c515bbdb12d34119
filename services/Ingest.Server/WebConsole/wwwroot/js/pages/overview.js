// Overview: health with its reasons, and the store's collections. Refreshed by polling GET /health and
// GET /stats every 2 seconds while the page is open.

import { ApiError, getJson } from '../api.js';
import { every, formatNumber, h, problemBox, replace, table } from '../ui.js';

export async function mount(root, { signal }) {
  const health = h('div', { class: 'card', 'aria-live': 'polite' });
  const collections = h('div', { class: 'card' });
  root.append(h('h1', { id: 'page-title' }, 'Overview'), health, collections);

  await every(2000, signal, async () => {
    let answer;
    try {
      answer = await getJson('/health', { signal });
    } catch (error) {
      // 503 is the unhealthy answer, with the same body: show its reasons.
      if (!(error instanceof ApiError) || error.status !== 503) {
        if (error instanceof ApiError && !error.offline) replace(health, problemBox(error));
        throw error;
      }
      answer = error.problem;
    }
    replace(health, h('h2', {}, 'Health'), h('p', { class: `status ${answer.status}` }, answer.status ?? 'unknown'));

    const stats = await getJson('/stats', { signal });
    const rows = (stats.collections ?? []).map((collection) => [collection.name, formatNumber(collection.count)]);
    replace(collections, table('Collections', ['Collection', 'Documents'], rows, { numeric: ['Documents'] }));
  });
}
