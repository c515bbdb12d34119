// The sources page's reset form: POST /sources/{name}/reset with {"to": "earliest" | "latest" | "<ISO 8601 time>"
// | {"<topic>": {"<partition>": offset}}}. Offsets are typed as the CLI takes them (topic:partition=offset, ...)
// and prefilled with the source's committed positions; what the server refuses (a RabbitMQ source, a partition
// the topic lacks) is shown under the form, what moved is shown as a table.

import { sendJson } from '../api.js';
import { clearInvalid, confirmAction, formatNumber, h, labelled, markInvalid, nextId, problemBox, replace, statusNote, table } from '../ui.js';

const targets = [
  { value: 'earliest', label: 'Earliest', hint: 'each partition\'s oldest message the broker still holds' },
  { value: 'latest', label: 'Latest', hint: 'the end: only what arrives from now on' },
  { value: 'time', label: 'A time', hint: 'each partition\'s first message at or after it' },
  { value: 'offsets', label: 'Offsets', hint: 'explicit positions; partitions not named keep theirs' },
];

export function resetForm(signal) {
  const sourceField = labelled('Source', (id) => h('select', { id, required: true }),
    'Only Kafka sources can be reset: a RabbitMQ queue cannot rewind.');
  const groupName = nextId('target');
  const radios = targets.map((target, index) => {
    const id = `${groupName}-${target.value}`;
    const input = h('input', { type: 'radio', name: groupName, id, value: target.value, checked: index === 0 });
    return h('label', { for: id }, input, `${target.label} `, h('span', { class: 'hint' }, `(${target.hint})`));
  });
  const timeField = labelled('Time (UTC)', (id) => h('input', { id, type: 'datetime-local', step: '1' }),
    'Interpreted as UTC.');
  const offsetsField = labelled('Offsets', (id) => h('input', { id, autocomplete: 'off', spellcheck: 'false', placeholder: 'orders:0=120, orders:1=0' }),
    'topic:partition=offset, separated by commas; prefilled with the committed positions.');
  const outcome = h('div', { 'aria-live': 'polite' });
  let known = [];

  const form = h('form', { class: 'card', 'aria-labelledby': 'reset-title' },
    h('h2', { id: 'reset-title' }, 'Reset a source'),
    h('p', { class: 'hint' }, 'Moves where a Kafka source consumes from: what it already consumed is written first, then every message from the new positions on is applied again.'),
    sourceField.field,
    h('fieldset', {}, h('legend', {}, 'Reset to'), h('div', { class: 'choices' }, radios)),
    timeField.field,
    offsetsField.field,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Reset source')),
    outcome);

  const chosen = () => form.querySelector(`input[name="${groupName}"]:checked`).value;
  // Only the input the chosen target needs is shown.
  const showInputs = () => {
    timeField.field.hidden = chosen() !== 'time';
    offsetsField.field.hidden = chosen() !== 'offsets';
  };
  form.addEventListener('change', showInputs);
  showInputs();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearInvalid(form);
    replace(outcome);
    const name = sourceField.input.value;
    const kind = chosen();
    let to = kind;
    if (kind === 'time') {
      if (!timeField.input.value) { markInvalid(timeField.input, 'Choose a time.'); timeField.input.focus(); return; }
      to = `${timeField.input.value.length === 16 ? `${timeField.input.value}:00` : timeField.input.value}Z`;
    } else if (kind === 'offsets') {
      const parsed = parseOffsets(offsetsField.input.value);
      if (parsed.error) { markInvalid(offsetsField.input, parsed.error); offsetsField.input.focus(); return; }
      to = parsed.offsets;
    }

    const said = typeof to === 'string' ? to : 'the offsets given';
    if (!await confirmAction(`Reset source "${name}" to ${said}? Every message from there on is applied again (or skipped, moving ahead).`, 'Reset')) return;
    try {
      const { json } = await sendJson('POST', `/sources/${encodeURIComponent(name)}/reset`, { to }, { signal });
      const rows = (json.partitions ?? []).map((partition) => [partition.topic, String(partition.partition),
        partition.from === null || partition.from === undefined ? 'none' : formatNumber(partition.from), formatNumber(partition.to)]);
      replace(outcome, statusNote(`Source "${json.source}" reset to ${json.to}: it now consumes from these offsets.`),
        table(`Partitions of ${json.source} moved`, ['Topic', 'Partition', 'From', 'To'], rows, { numeric: ['Partition', 'From', 'To'] }));
    } catch (error) {
      replace(outcome, problemBox(error));
    }
  });

  return {
    element: form,
    /** Keeps the source list (and the offsets' prefill) in step with /stats, without touching what was chosen. */
    update(sources) {
      const names = sources.map((source) => `${source.name}:${source.kind}`).join(',');
      if (names !== known.map((source) => `${source.name}:${source.kind}`).join(',')) {
        const selected = sourceField.input.value;
        replace(sourceField.input, sources.map((source) => h('option', { value: source.name, selected: source.name === selected },
          `${source.name} (${source.kind === 'kafka' ? 'Kafka' : 'RabbitMQ'})`)));
      }
      known = sources;
      const source = sources.find((candidate) => candidate.name === sourceField.input.value);
      if (source?.kind === 'kafka' && !offsetsField.input.value && document.activeElement !== offsetsField.input) {
        offsetsField.input.value = (source.partitions ?? [])
          .filter((partition) => partition.committedOffset !== null && partition.committedOffset !== undefined)
          .map((partition) => `${partition.name}:${partition.partition}=${partition.committedOffset}`).join(', ');
      }
    },
  };
}

/** "t:0=5, t:1=0" into {"t": {"0": 5, "1": 0}}, or { error } naming the part it cannot read. */
export function parseOffsets(text) {
  const offsets = {};
  const parts = text.split(',').map((part) => part.trim()).filter(Boolean);
  if (parts.length === 0) return { error: 'Name at least one topic:partition=offset.' };
  for (const part of parts) {
    const match = /^(.+):(\d+)=(\d+)$/.exec(part);
    if (!match) return { error: `"${part}" is not topic:partition=offset (e.g. orders:0=120).` };
    (offsets[match[1]] ??= {})[match[2]] = Number(match[3]);
  }
  return { offsets };
}
