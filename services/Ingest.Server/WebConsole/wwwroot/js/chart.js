// A dependency-free SVG line chart: time on x, numbers on y, one line per series. Enough for the ingestion
// rate and a query's time() buckets; the figures themselves are always also in a table beside it.

const svgNs = 'http://www.w3.org/2000/svg';
const palette = ['#1f5f8b', '#c0392b', '#2e8b57', '#8e44ad', '#d35400', '#16a085', '#7f8c8d'];

function svg(tag, attributes = {}) {
  const element = document.createElementNS(svgNs, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

function niceMax(value) {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (value <= step * magnitude) return step * magnitude;
  }
  return 10 * magnitude;
}

/**
 * series: [{ name, points: [[timeMs, value], ...] }]. Returns a <figure> with the chart and a legend;
 * label describes the chart for screen readers (the data is in a table beside it).
 */
export function lineChart(series, { label, unit = '', width = 640, height = 200 } = {}) {
  const pad = { left: 56, right: 12, top: 10, bottom: 24 };
  const all = series.flatMap((s) => s.points);
  const figure = document.createElement('figure');
  figure.className = 'chart';
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label ?? 'Chart', preserveAspectRatio: 'none' });
  figure.append(root);
  if (all.length === 0) {
    const text = svg('text', { x: width / 2, y: height / 2, 'text-anchor': 'middle', class: 'chart-empty' });
    text.textContent = 'No data yet';
    root.append(text);
    return figure;
  }

  let minX = Infinity; let maxX = -Infinity; let maxY = 0;
  for (const [x, y] of all) {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y > maxY) maxY = y;
  }
  if (maxX === minX) maxX = minX + 1;
  const top = niceMax(maxY);
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const px = (x) => pad.left + ((x - minX) / (maxX - minX)) * plotW;
  const py = (y) => pad.top + plotH - (y / top) * plotH;

  for (const fraction of [0, 0.5, 1]) {
    const y = py(top * fraction);
    root.append(svg('line', { x1: pad.left, x2: width - pad.right, y1: y, y2: y, class: 'chart-grid' }));
    const tick = svg('text', { x: pad.left - 6, y: y + 4, 'text-anchor': 'end', class: 'chart-tick' });
    tick.textContent = `${formatTick(top * fraction)}${unit}`;
    root.append(tick);
  }
  for (const [x, anchor] of [[minX, 'start'], [maxX, 'end']]) {
    const tick = svg('text', { x: px(x), y: height - 6, 'text-anchor': anchor, class: 'chart-tick' });
    tick.textContent = new Date(x).toLocaleTimeString();
    root.append(tick);
  }

  const legend = document.createElement('ul');
  legend.className = 'chart-legend';
  series.forEach((s, index) => {
    const color = palette[index % palette.length];
    const path = s.points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${px(x).toFixed(1)},${py(y).toFixed(1)}`).join('');
    root.append(svg('path', { d: path, fill: 'none', stroke: color, 'stroke-width': 2, 'vector-effect': 'non-scaling-stroke' }));
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = color;
    item.append(swatch, document.createTextNode(s.name));
    legend.append(item);
  });
  figure.append(legend);
  return figure;
}

function formatTick(value) {
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
