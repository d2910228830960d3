/** The page's elements and small text helpers (no state). */

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const e = document.getElementById(id);
  if (e === null) throw new Error(`missing #${id}`);
  return e as T;
};

export const ui = {
  sample: $<HTMLSelectElement>('sample'),
  family: $<HTMLSelectElement>('family'),
  options: $('options'),
  pasteToggle: $<HTMLButtonElement>('paste-toggle'),
  paste: $('paste'),
  hexInput: $<HTMLTextAreaElement>('hex-input'),
  decodeHex: $<HTMLButtonElement>('decode-hex'),
  file: $<HTMLInputElement>('file'),
  source: $('source'),
  prev: $<HTMLButtonElement>('prev'),
  next: $<HTMLButtonElement>('next'),
  step: $<HTMLInputElement>('step'),
  position: $('position'),
  summary: $('summary'),
  nextError: $<HTMLButtonElement>('next-error'),
  progress: $<HTMLProgressElement>('progress'),
  error: $('error'),
  packets: $('packets'),
  pktFilter: $<HTMLInputElement>('pkt-filter'),
  pktTick: $<HTMLInputElement>('pkt-tick'),
  pktCount: $('pkt-count'),
  pktList: $('pkt-list'),
  tree: $('tree'),
  fields: $('fields'),
  stats: $('stats'),
  status: $('status'),
  hex: $('hex'),
  entRanges: $('ent-ranges'),
  state: $('state'),
  stateSummary: $('state-summary'),
  filter: $<HTMLInputElement>('filter'),
  onlyChanged: $<HTMLInputElement>('only-changed'),
  history: $('history'),
  drop: $('drop'),
};

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function fmtValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  if (v === undefined) return 'undefined';
  if (v !== null && typeof v === 'object') {
    const s = JSON.stringify(v);
    return s.length > 80 ? `${s.slice(0, 77)}…` : s;
  }
  return String(v);
}

export function plural(n: number, w: string): string {
  return `${n} ${n === 1 ? w : w.endsWith('y') ? `${w.slice(0, -1)}ies` : `${w}s`}`;
}

/** A byte range as people read it: inclusive, `12–15` (or `12` for one byte). */
export function rng(start: number, end: number): string {
  return end - start <= 1 ? String(start) : `${start}–${end - 1}`;
}

export function rangeText(s: { start: number; end: number; layer?: string | undefined }): string {
  const n = s.end - s.start;
  return `${n <= 1 ? 'byte' : 'bytes'} ${rng(s.start, s.end)} (${plural(n, 'byte')})${s.layer !== undefined ? ` in ${s.layer}` : ''}`;
}

export const HEX2: string[] = [];
for (let i = 0; i < 256; i++) HEX2.push(i.toString(16).padStart(2, '0'));
