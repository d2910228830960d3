/** The Statistics view: the same numbers as `tickwire stats`, over the loaded stream. */
import { StatsCollector, statsHeadline, statsTables, wireSize } from '../../families/stats.js';
import { esc } from './dom.js';
import type { MessageView } from './model.js';

export function renderStatsView(host: HTMLElement, messages: readonly MessageView[]): void {
  const c = new StatsCollector();
  for (const m of messages) {
    if (m.error !== undefined) continue;
    c.add({ summary: m.summary, size: wireSize(m), state: m.stateDiff, entities: m.entities, spans: m.spans });
  }
  let html = `<p class="headline">${esc(statsHeadline(c.stats))}</p>`;
  for (const t of statsTables(c.stats)) {
    html += `<h3>${esc(t.title)}</h3><table class="stats"><thead><tr>${t.head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>`;
    for (const r of t.rows.slice(0, 200)) html += `<tr>${r.map((x) => `<td>${esc(String(x))}</td>`).join('')}</tr>`;
    html += '</tbody></table>';
  }
  host.innerHTML = html;
}
