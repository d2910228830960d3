/**
 * The packet list, as in Wireshark: number, time, direction, type, size and a one-line
 * summary (tick; entities created / updated / removed) per message. Filter by entity
 * id, entity type or field name; jump to a tick. Rows are drawn in windows so that a
 * stream of 100,000 messages stays responsive.
 */
import { esc } from './dom.js';
import { wireSize } from '../../families/stats.js';
import type { MessageView } from './model.js';

const WINDOW = 400;
/** Row height in px (fixed in app.css), so that scrolling to a row needs no layout read. */
const ROW_PX = 18;

export function messageSize(m: MessageView): number {
  return wireSize(m);
}

export function summaryLine(m: MessageView): string {
  const parts: string[] = [];
  if (m.summary.tick !== undefined) parts.push(`tick ${m.summary.tick}`);
  const c = m.changes;
  if (c.created.length + c.updated.length + c.removed.length > 0) parts.push(`+${c.created.length} ~${c.updated.length} −${c.removed.length}`);
  if (m.error !== undefined) parts.push(`error: ${m.error.message.slice(0, 80)}`);
  return parts.join(' · ');
}

/** Does message `m` touch what the filter names (an entity id, an entity type, a field name, a message type)? */
export function matches(m: MessageView, q: string): boolean {
  if (q === '') return true;
  const c = m.changes;
  const ids = [...c.created, ...c.updated, ...c.removed];
  if (ids.some((id) => id.toLowerCase() === q)) return true;
  if (m.summary.type.toLowerCase().includes(q)) return true;
  for (const r of m.stateDiff?.rows ?? []) {
    if (r.type.toLowerCase().includes(q)) return true;
    if (r.changed.some((f) => f.toLowerCase() === q)) return true;
  }
  return false;
}

export class PacketList {
  private shown: number[] = [];
  private start = 0;
  /** Messages drawn in the current window, and the row element of each. */
  private drawnFor: readonly MessageView[] | undefined;
  private rows = new Map<number, HTMLElement>();
  private cur: HTMLElement | undefined;
  constructor(
    private readonly host: HTMLElement,
    private readonly count: HTMLElement,
  ) {}

  /** Rebuild the filtered index list. */
  refresh(messages: readonly MessageView[], query: string, current: number): void {
    this.drawnFor = undefined;
    const q = query.trim().toLowerCase();
    this.shown = [];
    for (let i = 0; i < messages.length; i++) if (matches(messages[i]!, q)) this.shown.push(i);
    this.count.textContent = q === '' ? `${messages.length} messages` : `${this.shown.length} of ${messages.length} messages touch “${query.trim()}”`;
    this.draw(messages, current);
  }

  /** Draw the window of rows around `current`; when it is already drawn, only move the highlight. */
  draw(messages: readonly MessageView[], current: number): void {
    let pos = this.shown.indexOf(current);
    if (pos < 0) pos = 0;
    const inWindow = pos >= this.start && pos < this.start + WINDOW;
    if (inWindow && this.drawnFor === messages && this.rows.size > 0) {
      this.highlight(current);
      return;
    }
    if (!inWindow) this.start = Math.max(0, pos - (WINDOW >> 2));
    const end = Math.min(this.shown.length, this.start + WINDOW);
    let html = '<table><thead><tr><th>no.</th><th>time</th><th>dir</th><th>type</th><th>size</th><th>summary</th></tr></thead><tbody>';
    if (this.start > 0) html += `<tr class="more"><td colspan="6">… ${this.start} earlier</td></tr>`;
    for (let k = this.start; k < end; k++) {
      const i = this.shown[k]!;
      const m = messages[i];
      if (m === undefined) continue;
      const cls = `${i === current ? 'cur' : ''}${m.error !== undefined ? ' bad' : ''}`;
      html += `<tr data-i="${i}" class="${cls}"><td>${i + 1}</td><td>${m.summary.time !== undefined ? m.summary.time.toFixed(3) : ''}</td><td>${esc(m.summary.direction ?? '')}</td><td>${esc(m.summary.type)}</td><td>${messageSize(m) || ''}</td><td>${esc(summaryLine(m))}</td></tr>`;
    }
    if (end < this.shown.length) html += `<tr class="more"><td colspan="6">… ${this.shown.length - end} later</td></tr>`;
    html += '</tbody></table>';
    this.host.innerHTML = html;
    this.drawnFor = messages;
    this.rows = new Map();
    for (const tr of Array.from(this.host.querySelectorAll<HTMLElement>('tr[data-i]'))) this.rows.set(Number(tr.dataset.i), tr);
    this.cur = undefined;
    this.highlight(current);
  }

  /** Mark the current row and scroll it into view by arithmetic (no forced layout). */
  private highlight(current: number): void {
    this.cur?.classList.remove('cur');
    this.cur = this.rows.get(current);
    if (this.cur === undefined) return;
    this.cur.classList.add('cur');
    const k = this.shown.indexOf(current) - this.start + (this.start > 0 ? 1 : 0);
    const top = (k + 1) * ROW_PX; // + the header row
    const view = this.host.clientHeight || 150;
    if (top < this.host.scrollTop + ROW_PX || top + ROW_PX > this.host.scrollTop + view) this.host.scrollTop = Math.max(0, top - view / 2);
  }

  /** First message at or after `tick` (by the messages' own ticks), or undefined. */
  static findTick(messages: readonly MessageView[], tick: number): number | undefined {
    let best: number | undefined;
    for (let i = 0; i < messages.length; i++) {
      const t = messages[i]!.summary.tick;
      if (t === undefined) continue;
      if (t === tick) return i;
      if (t > tick && (best === undefined || t < messages[best]!.summary.tick!)) best = i;
    }
    return best;
  }
}
