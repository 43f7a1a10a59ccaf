// A sandbox's memory, CPU and processes over the last minutes, as small SVG charts. The figures come from the
// sandbox read (GET /v1/sandboxes/{id}: status.memory_bytes, cpu_nanos, pids), sampled while the page is open.
import { api } from './api.js';
import { h, formatBytes } from './dom.js';

const SAMPLE_MS = 2000;
const WINDOW_MS = 5 * 60 * 1000;
const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 240;
const HEIGHT = 48;

function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** One chart: a line over the window, its latest value, and a note when the driver cannot measure it. */
function sparkline(name, label, format, maxOf) {
  const line = svg('polyline', { class: 'spark-line', points: '', fill: 'none' });
  const area = svg('polygon', { class: 'spark-area', points: '' });
  const chart = svg('svg', { class: 'spark', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': label });
  chart.append(area, line);
  const value = h('span', { class: 'spark-value', id: `chart-${name}-value` }, '—');
  const note = h('span', { class: 'muted small', id: `chart-${name}-note` });
  const element = h('div', { class: 'spark-card', id: `chart-${name}`, dataset: { points: '0' } },
    h('div', { class: 'spark-head' }, h('span', { class: 'muted small' }, label), value), chart, note);

  function draw(points, now) {
    const known = points.filter((p) => p.v !== null);
    element.dataset.points = String(known.length);
    if (!known.length) {
      value.textContent = '—';
      line.setAttribute('points', '');
      area.setAttribute('points', '');
      return;
    }
    const top = Math.max(maxOf(known), 1e-9);
    const x = (t) => ((t - (now - WINDOW_MS)) / WINDOW_MS) * WIDTH;
    const y = (v) => HEIGHT - 2 - (Math.min(v, top) / top) * (HEIGHT - 4);
    const coords = known.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`);
    line.setAttribute('points', coords.join(' '));
    area.setAttribute('points', `${x(known[0].t).toFixed(1)},${HEIGHT} ${coords.join(' ')} ${x(known[known.length - 1].t).toFixed(1)},${HEIGHT}`);
    value.textContent = format(known[known.length - 1].v);
  }

  return { element, draw, note };
}

export function createUsageCharts(id) {
  let limits = {};
  // each chart scales to what it has seen (with headroom), so small changes show; the note gives the limit
  const peak = (ps, floor) => Math.max(floor, ...ps.map((p) => p.v)) * 1.25;
  const memory = sparkline('memory', 'Memory', (v) => formatBytes(Math.round(v)), (ps) => peak(ps, 1024 * 1024));
  const cpu = sparkline('cpu', 'CPU', (v) => `${v.toFixed(0)}%`, (ps) => peak(ps, 10));
  const pids = sparkline('pids', 'Processes', (v) => String(Math.round(v)), (ps) => peak(ps, 4));
  const samples = [];
  const element = h('section', { class: 'panel', id: 'usage-charts' },
    h('div', { class: 'panel-head' }, h('h2', {}, 'Usage'), h('p', { class: 'muted small' }, 'The last five minutes while this page is open, sampled every two seconds.')),
    h('div', { class: 'spark-grid' }, memory.element, cpu.element, pids.element));
  let timer = null;
  let stopped = false;
  let previous = null;

  async function sample() {
    try {
      const s = await api.sandbox(id);
      if (stopped) return;
      limits = s.limits || {};
      const now = Date.now();
      const st = s.status;
      if (!st) {
        for (const c of [memory, cpu, pids]) c.note.textContent = `Not running (${s.state}).`;
      } else {
        const cpuNanos = typeof st.cpu_nanos === 'number' && st.cpu_nanos >= 0 ? st.cpu_nanos : null;
        let cpuPercent = null;
        if (cpuNanos !== null && previous && previous.cpu !== null && now > previous.t) {
          cpuPercent = Math.max(0, ((cpuNanos - previous.cpu) / 1e6 / (now - previous.t)) * 100);
        }
        previous = { t: now, cpu: cpuNanos };
        samples.push({ t: now, memory: known(st.memory_bytes), cpu: cpuPercent, pids: known(st.pids) });
        const unmeasured = `Not measured by the ${s.driver} driver.`;
        memory.note.textContent = known(st.memory_bytes) === null ? unmeasured : `of ${formatBytes(limits.memory_bytes)}`;
        cpu.note.textContent = cpuNanos === null ? unmeasured : `of ${limits.cpus ?? '?'} CPU (100% = one core)`;
        pids.note.textContent = known(st.pids) === null ? unmeasured : `of at most ${limits.pids ?? '?'}`;
      }
      while (samples.length && samples[0].t < now - WINDOW_MS) samples.shift();
      memory.draw(samples.map((p) => ({ t: p.t, v: p.memory })), now);
      cpu.draw(samples.map((p) => ({ t: p.t, v: p.cpu })), now);
      pids.draw(samples.map((p) => ({ t: p.t, v: p.pids })), now);
      if (['terminated', 'failed'].includes(s.state)) return;
    } catch (err) {
      // the overview above reports failures; the charts only pause
    }
    if (!stopped) timer = setTimeout(sample, SAMPLE_MS);
  }

  sample();
  return {
    element,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

function known(n) {
  return typeof n === 'number' && n >= 0 ? n : null;
}
