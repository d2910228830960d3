/** The hex pane: one block per buffer (the message, then inner buffers such as an LZ4 or zlib body), entity colours, painting. */
import type { Span } from '../../core/index.js';
import type { EntityByteRange } from '../../families/types.js';
import { HEX2, esc, plural, rangeText, rng } from './dom.js';
import { buffersOf, type MessageView } from './model.js';

/** Bytes shown per buffer in the hex pane (spans past it are listed but not drawn). */
export const HEX_CAP = 1 << 16;

export type Cells = Map<string, { bytes: HTMLElement[]; ascii: HTMLElement[]; length: number }>;

function entityClasses(ranges: readonly EntityByteRange[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const colour = new Map<string, number>();
  for (const r of ranges) {
    const layer = r.layer ?? '';
    let arr = out.get(layer);
    if (arr === undefined) out.set(layer, (arr = []));
    if (!colour.has(r.id)) colour.set(r.id, colour.size % 6);
    const c = `e${colour.get(r.id)!}`;
    for (let i = Math.max(0, r.start); i < Math.min(r.end, HEX_CAP); i++) arr[i] = c;
  }
  return out;
}

export function renderHex(host: HTMLElement, m: MessageView | undefined): Cells {
  const cells: Cells = new Map();
  host.innerHTML = '';
  if (m === undefined) return cells;
  const bufs = buffersOf(m);
  if (bufs.length === 0) {
    host.innerHTML = '<p class="note">This message came out of a file decoder that gives its records but not its bytes.</p>';
    return cells;
  }
  const entityClass = entityClasses(m.entities);
  const errAt = m.error?.decodeError ? m.error.offset : -1;
  const errLayer = m.error?.layer ?? '';
  let html = '';
  for (const [layer, bytes] of bufs) {
    const shown = Math.min(bytes.length, HEX_CAP);
    const title = layer === '' ? `message ${m.index + 1} · ${plural(bytes.length, 'byte')}` : `inner buffer “${esc(layer)}” · ${plural(bytes.length, 'byte')}`;
    html += `<div class="buf" data-layer="${esc(layer)}"><h3>${title}${shown < bytes.length ? ` (first ${shown} shown)` : ''}</h3>`;
    const digits = Math.max(4, bytes.length.toString(16).length);
    const classes = entityClass.get(layer);
    const errHere = layer === errLayer ? errAt : -1;
    const rows = Math.max(1, Math.ceil((shown + (errHere >= shown ? 1 : 0)) / 16));
    for (let r = 0; r < rows; r++) {
      let hx = '';
      let asc = '';
      for (let i = r * 16; i < r * 16 + 16; i++) {
        const gap = i % 16 === 7 ? ' gap' : '';
        if (i < shown) {
          const b = bytes[i]!;
          const ec = classes?.[i];
          hx += `<span class="b${gap}${ec !== undefined ? ` ${ec}` : ''}${i === errHere ? ' err' : ''}" data-o="${i}">${HEX2[b]}</span>`;
          asc += `<span class="a" data-o="${i}">${b >= 0x20 && b < 0x7f ? esc(String.fromCharCode(b)) : '.'}</span>`;
        } else if (i === errHere) hx += `<span class="b err eof${gap}" data-o="${i}" title="end of input">··</span>`;
        else hx += `<span class="pad${gap}">  </span>`;
        if (i < r * 16 + 15) hx += ' ';
      }
      html += `<div class="row"><span class="off">${(r * 16).toString(16).padStart(digits, '0')}</span><span class="hx">${hx}</span><span class="asc">${asc}</span></div>`;
    }
    html += '</div>';
  }
  host.innerHTML = html;
  for (const el of Array.from(host.querySelectorAll<HTMLElement>('.buf'))) {
    const layer = el.dataset.layer ?? '';
    const bytes: HTMLElement[] = [];
    const ascii: HTMLElement[] = [];
    for (const b of Array.from(el.querySelectorAll<HTMLElement>('.b'))) bytes[Number(b.dataset.o)] = b;
    for (const a of Array.from(el.querySelectorAll<HTMLElement>('.a'))) ascii[Number(a.dataset.o)] = a;
    cells.set(layer, { bytes, ascii, length: bufs.find((x) => x[0] === layer)?.[1].length ?? 0 });
  }
  const err = host.querySelector<HTMLElement>('.b.err');
  if (err !== null) {
    err.title = m.error!.message;
    err.scrollIntoView({ block: 'center' });
  }
  return cells;
}

export function renderEntityRanges(host: HTMLElement, m: MessageView | undefined): void {
  const ranges = m?.entities ?? [];
  if (ranges.length === 0) {
    host.innerHTML = '';
    return;
  }
  const colour = new Map<string, number>();
  let html = '<span class="muted">bytes by entity: </span>';
  ranges.forEach((r, i) => {
    if (!colour.has(r.id)) colour.set(r.id, colour.size % 6);
    html += `<span class="ent e${colour.get(r.id)!}" data-i="${i}" title="${esc(rangeText(r))}">${esc(r.id)} <span class="muted">${r.layer !== undefined ? `${esc(r.layer)}:` : ''}${rng(r.start, r.end)} (${r.end - r.start} B)</span></span>`;
  });
  host.innerHTML = html;
}

export function paint(cells: Cells, range: Span | undefined, cls: string, on: boolean): void {
  if (range === undefined) return;
  const c = cells.get(range.layer ?? '');
  if (c === undefined) return;
  const end = Math.min(range.end, c.bytes.length);
  for (let i = Math.max(0, range.start); i < end; i++) {
    c.bytes[i]?.classList.toggle(cls, on);
    c.ascii[i]?.classList.toggle(cls, on);
  }
}
