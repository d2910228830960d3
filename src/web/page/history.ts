/** Entity history: one entity's fields over the whole stream, with a small line chart for each numeric field. */
import { esc, fmtValue } from './dom.js';
import type { MessageView } from './model.js';

interface Point {
  message: number;
  tick: number | undefined;
  value: unknown;
}

/** Each field's values over the stream, where the entity exists. */
export function entityHistory(messages: readonly MessageView[], id: string): { type: string; fields: Map<string, Point[]> } {
  const fields = new Map<string, Point[]>();
  let type = '';
  for (const m of messages) {
    // the entity's values where they change (its diff rows), and at keyframes
    const row = m.stateDiff?.rows.find((r) => r.id === id) ?? m.state?.rows.find((r) => r.id === id);
    if (row === undefined) continue;
    type = row.type;
    for (const [k, v] of Object.entries(row.fields)) {
      let pts = fields.get(k);
      if (pts === undefined) fields.set(k, (pts = []));
      pts.push({ message: m.index, tick: m.summary.tick, value: v });
    }
  }
  return { type, fields };
}

function chart(points: readonly Point[]): string {
  const ys = points.map((p) => Number(p.value));
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  const xs = points.map((p) => p.message);
  const x0 = xs[0]!;
  const x1 = Math.max(xs[xs.length - 1]!, x0 + 1);
  const W = 240;
  const H = 40;
  const pts = points
    .map((p, i) => `${(((p.message - x0) / (x1 - x0)) * W).toFixed(1)},${(H - (hi === lo ? H / 2 : ((ys[i]! - lo) / (hi - lo)) * H)).toFixed(1)}`)
    .join(' ');
  return `<svg class="chart" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="values from ${lo} to ${hi}"><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${pts}"/></svg><span class="muted">${fmtValue(lo)} … ${fmtValue(hi)}</span>`;
}

export function renderHistory(host: HTMLElement, messages: readonly MessageView[], id: string): void {
  const h = entityHistory(messages, id);
  if (h.fields.size === 0) {
    host.innerHTML = `<div class="bar"><strong>History of ${esc(id)}</strong> <button type="button" data-close>close</button></div><p class="note">No message holds this entity.</p>`;
    host.hidden = false;
    return;
  }
  let html = `<div class="bar"><strong>History of ${esc(id)}</strong> <span class="muted">${esc(h.type)}</span> <button type="button" data-close>close</button></div><table><thead><tr><th>field</th><th>values over the stream</th><th>last</th></tr></thead><tbody>`;
  for (const [k, pts] of h.fields) {
    const numeric = pts.length > 1 && pts.every((p) => typeof p.value === 'number' && Number.isFinite(p.value));
    const changes = pts.filter((p, i) => i === 0 || JSON.stringify(p.value) !== JSON.stringify(pts[i - 1]!.value));
    const body = numeric
      ? chart(pts)
      : changes
          .slice(0, 12)
          .map((p) => `<span class="hv" data-i="${p.message}">#${p.message + 1}: ${esc(fmtValue(p.value))}</span>`)
          .join(' ') + (changes.length > 12 ? ` … ${changes.length - 12} more changes` : '');
    html += `<tr data-field="${esc(k)}"><td>${esc(k)}</td><td>${body}</td><td>${esc(fmtValue(pts[pts.length - 1]!.value))}</td></tr>`;
  }
  html += '</tbody></table>';
  host.innerHTML = html;
  host.hidden = false;
}
