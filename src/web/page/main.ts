/**
 * The inspector page (browser side). Bundled by src/web/build.ts with the family
 * adapters; all decoding goes through them (see model.ts).
 */
import { FAMILIES } from '../../families/registry.js';
import type { EntityByteRange, EntityTable, FamilyAdapter, FamilyOption, OptionValues, Sample } from '../../families/types.js';
import type { Span } from '../../core/index.js';
import { buffersOf, decodeFileBytes, decodePastedHex, optionsFor, parentPath, SpanIndex, type MessageView, type Session } from './model.js';

/** Bytes shown per buffer in the hex pane (spans past it are listed but not drawn). */
const HEX_CAP = 1 << 16;

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const e = document.getElementById(id);
  if (e === null) throw new Error(`missing #${id}`);
  return e as T;
};

const ui = {
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
  error: $('error'),
  tree: $('tree'),
  fields: $('fields'),
  status: $('status'),
  hex: $('hex'),
  entRanges: $('ent-ranges'),
  state: $('state'),
  stateSummary: $('state-summary'),
  filter: $<HTMLInputElement>('filter'),
  onlyChanged: $<HTMLInputElement>('only-changed'),
  drop: $('drop'),
};

// ---------------------------------------------------------------- helpers

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const HEX2: string[] = [];
for (let i = 0; i < 256; i++) HEX2.push(i.toString(16).padStart(2, '0'));

function fmtValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  if (v === undefined) return 'undefined';
  if (v !== null && typeof v === 'object') {
    const s = JSON.stringify(v);
    return s.length > 80 ? `${s.slice(0, 77)}…` : s;
  }
  return String(v);
}

function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? '' : 's'}`;
}

/** A byte range as people read it: inclusive, `12–15` (or `12` for one byte). */
function rng(start: number, end: number): string {
  return end - start <= 1 ? String(start) : `${start}–${end - 1}`;
}

function rangeText(s: { start: number; end: number; layer?: string | undefined }): string {
  const n = s.end - s.start;
  return `${n <= 1 ? 'byte' : 'bytes'} ${rng(s.start, s.end)} (${plural(n, 'byte')})${s.layer !== undefined ? ` in ${s.layer}` : ''}`;
}

// ---------------------------------------------------------------- state

interface LastInput {
  kind: 'sample' | 'paste' | 'file';
  name: string;
  bytes?: Uint8Array;
  text?: string;
  format?: Sample['format'];
  family: FamilyAdapter;
  /** Options that come with the input (a sample's), under the ones set on the page. */
  baseOptions?: OptionValues;
}

let session: Session | undefined;
let current = 0;
let last: LastInput | undefined;
let index = new SpanIndex([]);
/** Hex cells per buffer layer ('' = the message itself). */
let cells = new Map<string, { bytes: HTMLElement[]; ascii: HTMLElement[]; length: number }>();
/** Tree nodes by span path. */
let treeBySpan = new Map<string, HTMLElement>();
let fieldEls: HTMLElement[] = [];
let hoverRange: Span | undefined;
let selected: Span | undefined;
let hoverTree: HTMLElement | undefined;
let selectedTree: HTMLElement | undefined;

// ---------------------------------------------------------------- controls

function familyByName(name: string): FamilyAdapter | undefined {
  return FAMILIES.find((f) => f.name === name);
}

function fillSelectors(): void {
  let html = '<option value="">— choose a sample —</option>';
  for (const f of FAMILIES) {
    html += `<optgroup label="${esc(f.name)}">`;
    if (f.samples.length === 0) html += `<option disabled value="">${esc(f.name)}: no samples yet</option>`;
    for (const s of f.samples) html += `<option value="${esc(`${f.name}/${s.id}`)}">${esc(f.name)} · ${esc(s.title)}</option>`;
    html += '</optgroup>';
  }
  ui.sample.innerHTML = html;
  ui.family.innerHTML = FAMILIES.map((f) => `<option value="${esc(f.name)}" title="${esc(f.summary)}">${esc(f.name)}</option>`).join('');
  renderOptions();
}

function renderOptions(values?: OptionValues): void {
  const f = familyByName(ui.family.value);
  if (f === undefined) return;
  const v = optionsFor(f, values);
  let html = '';
  for (const [k, o] of Object.entries(f.options)) {
    if (!optionOnPage(o)) continue;
    const title = esc(o.description);
    if (o.type === 'boolean') {
      html += `<label title="${title}"><input type="checkbox" data-opt="${esc(k)}"${v[k] === true ? ' checked' : ''}> ${esc(k)}</label>`;
    } else if (o.choices) {
      html += `<label title="${title}">${esc(k)} <select data-opt="${esc(k)}">${o.choices.map((c) => `<option${v[k] === c ? ' selected' : ''}>${esc(c)}</option>`).join('')}</select></label>`;
    } else {
      html += `<label title="${title}">${esc(k)} <input size="8" data-opt="${esc(k)}" value="${esc(String(v[k] ?? ''))}"></label>`;
    }
  }
  ui.options.innerHTML = html;
}

/** Options that make sense on the page: not those of the live client (`watch`) nor file-path ones (`--pcap FILE`). */
function optionOnPage(o: FamilyOption): boolean {
  return (o as { inputFile?: boolean }).inputFile !== true && !/^watch\b/i.test(o.description);
}

function currentOptions(): OptionValues {
  const out: OptionValues = {};
  for (const el of Array.from(ui.options.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-opt]'))) {
    const k = el.dataset.opt!;
    if (el instanceof HTMLInputElement && el.type === 'checkbox') out[k] = el.checked;
    else if (el.value !== '') out[k] = el.value;
  }
  return out;
}

// ---------------------------------------------------------------- loading

function runInput(input: LastInput, options: OptionValues): void {
  last = input;
  const f = input.family;
  const opts = optionsFor(f, { ...input.baseOptions, ...options });
  try {
    if (input.kind === 'paste') session = decodePastedHex(f, opts, input.text ?? '');
    else session = decodeFileBytes(f, opts, input.name, input.bytes ?? new Uint8Array(), input.format);
  } catch (e) {
    showPageError(e);
    return;
  }
  show(0);
}

async function loadSample(key: string): Promise<void> {
  const [fname, id] = key.split('/') as [string, string];
  const f = familyByName(fname);
  const s = f?.samples.find((x) => x.id === id);
  if (f === undefined || s === undefined) return;
  document.body.dataset.state = 'loading';
  ui.sample.value = key;
  ui.family.value = f.name;
  ui.paste.hidden = true;
  renderOptions(s.options);
  let bytes: Uint8Array;
  try {
    const res = await fetch(`files/${s.path.split('/').map(encodeURIComponent).join('/')}`);
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    showPageError(new Error(`cannot load sample ${s.path}: ${(e as Error).message}`));
    return;
  }
  history.replaceState(null, '', `#sample=${encodeURIComponent(key)}`);
  runInput({ kind: 'sample', name: `sample: ${s.title}`, bytes, format: s.format, family: f, baseOptions: s.options ?? {} }, currentOptions());
}

async function loadFile(file: File): Promise<void> {
  const f = familyByName(ui.family.value);
  if (f === undefined) return;
  document.body.dataset.state = 'loading';
  const bytes = new Uint8Array(await file.arrayBuffer());
  ui.sample.value = '';
  runInput({ kind: 'file', name: `file: ${file.name}`, bytes, family: f }, currentOptions());
}

function decodePaste(): void {
  const f = familyByName(ui.family.value);
  if (f === undefined) return;
  ui.sample.value = '';
  runInput({ kind: 'paste', name: 'pasted hex', text: ui.hexInput.value, family: f }, currentOptions());
}

// ---------------------------------------------------------------- rendering

function showPageError(e: unknown): void {
  ui.error.hidden = false;
  ui.error.textContent = `page error: ${e instanceof Error ? e.message : String(e)}`;
  document.body.dataset.state = 'ready';
}

function show(i: number): void {
  const s = session;
  if (s === undefined) return;
  const n = s.messages.length;
  current = Math.max(0, Math.min(i, n - 1));
  const m = s.messages[current];
  ui.source.textContent = `${s.family.name} · ${s.source} · ${s.kind}`;
  ui.step.max = String(Math.max(0, n - 1));
  ui.step.value = String(current);
  ui.step.disabled = n <= 1;
  ui.prev.disabled = current <= 0;
  ui.next.disabled = current >= n - 1;
  const errors = s.messages.filter((x) => x.error !== undefined).length;
  ui.nextError.hidden = errors === 0 || n <= 1;
  ui.position.textContent = n === 0 ? 'no messages' : `message ${current + 1} of ${n}`;
  ui.summary.textContent = m === undefined ? '' : summaryOf(m) + (errors > 0 ? ` · ${plural(errors, 'message')} with errors in this input` : '');
  hoverRange = undefined;
  selected = undefined;
  hoverTree = undefined;
  selectedTree = undefined;
  if (s.inputError !== undefined) {
    ui.error.hidden = false;
    ui.error.textContent = `input: ${s.inputError}`;
  } else if (m?.error !== undefined) {
    ui.error.hidden = false;
    renderErrorBanner(m);
  } else {
    ui.error.hidden = true;
    ui.error.textContent = '';
  }
  index = new SpanIndex(m?.spans ?? []);
  renderTree(m);
  renderFields(m);
  renderHex(m);
  renderEntityRanges(m);
  renderState(m?.state);
  setStatus(undefined);
  document.body.dataset.state = 'ready';
  document.body.dataset.message = String(current);
}

function summaryOf(m: MessageView): string {
  const parts: string[] = [];
  if (m.bytes !== undefined) parts.push(plural(m.bytes.length, 'byte'));
  for (const [k, v] of Object.entries(m.layers)) parts.push(`${k}: ${plural(v.length, 'byte')}`);
  parts.push(plural(m.records.length, 'record'));
  if (m.entities.length > 0) parts.push(plural(new Set(m.entities.map((e) => e.id)).size, 'entity') .replace('entitys', 'entities'));
  if (m.error !== undefined) parts.push('decode error');
  return parts.join(' · ');
}

function renderErrorBanner(m: MessageView): void {
  const e = m.error!;
  const label = session!.messages.length > 1 ? `message ${m.index + 1}: ` : '';
  ui.error.innerHTML = '';
  const text = document.createElement('span');
  text.className = 'text';
  const inner = e.layer !== undefined ? ` (an offset in the inner buffer “${e.layer}”${m.layers[e.layer] === undefined ? ', which the failed decode did not return' : ''})` : '';
  text.textContent = `${label}${e.decodeError ? 'DecodeError ' : ''}${e.message}${inner}`;
  ui.error.append(text);
  if (e.decodeError && m.bytes !== undefined && (e.layer === undefined || m.layers[e.layer] !== undefined)) {
    const a = document.createElement('a');
    a.className = 'goto';
    a.textContent = `  ▶ show byte ${e.offset}`;
    a.addEventListener('click', () => document.querySelector('.b.err')?.scrollIntoView({ block: 'center' }));
    ui.error.append(a);
  }
}

// -- tree

/** Arrays longer than this show their elements (objects, arrays) closed, to keep the tree readable and fast. */
const FOLD_AFTER = 10;

function treeNode(key: string, value: unknown, path: string, prefixes: string[], depth: number, fold = false): string {
  let spanPath: string | undefined;
  for (const p of prefixes) {
    const full = p === '' ? path : path === '' ? p.replace(/\.$/, '') : p.endsWith('.') ? p + path : path.startsWith('[') ? p + path : `${p}.${path}`;
    if (index.rangeOf(full) !== undefined) {
      spanPath = full;
      break;
    }
  }
  const attrs = `data-path="${esc(path)}"${spanPath !== undefined ? ` data-span="${esc(spanPath)}"` : ''}`;
  const cls = spanPath !== undefined ? 'tn linked' : 'tn';
  const k = key === '' ? '' : `<span class="k">${esc(key)}</span><span class="c">: </span>`;
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const entries = Array.isArray(value) ? value.map((v, i) => [`[${i}]`, v] as const) : Object.entries(value as Record<string, unknown>);
    const sum = Array.isArray(value) ? `[${value.length}]` : `{${entries.length}}`;
    const closed = fold || (depth >= 5 && entries.length > FOLD_AFTER);
    const foldKids = Array.isArray(value) && value.length > FOLD_AFTER;
    let kids = '';
    for (const [ck, cv] of entries) {
      const cp = ck.startsWith('[') ? path + ck : path === '' ? ck : `${path}.${ck}`;
      kids += treeNode(ck, cv, cp, prefixes, depth + 1, foldKids);
    }
    return `<div class="node${closed ? ' closed' : ''}"><div class="${cls}" ${attrs}><span class="tog">${closed ? '▸' : '▾'}</span>${k}<span class="sum">${sum}</span></div><div class="kids">${kids}</div></div>`;
  }
  const sCls = typeof value === 'string' ? 'v s' : 'v';
  return `<div class="node leaf"><div class="${cls}" ${attrs}><span class="tog"></span>${k}<span class="${sCls}">${esc(fmtValue(value))}</span></div></div>`;
}

function renderTree(m: MessageView | undefined): void {
  treeBySpan = new Map();
  if (m === undefined) {
    ui.tree.innerHTML = `<p class="note">${session?.inputError !== undefined ? 'nothing decoded' : 'no messages'}</p>`;
    return;
  }
  if (m.records.length === 0) {
    ui.tree.innerHTML = m.error !== undefined
      ? `<p class="note">Not decoded: see the error above. ${m.spans.length > 0 ? `The “Fields” tab lists the ${m.spans.length} fields read before it.` : ''}</p>`
      : `<p class="note">This message yields no record (e.g. one part of a message sent in several, which completes nothing yet).${m.spans.length > 0 ? ` The “Fields” tab lists the ${m.spans.length} fields the decoder read.` : ''}</p>`;
    return;
  }
  let html = '';
  const multi = m.records.length > 1;
  m.records.forEach((r, i) => {
    const prefixes = multi ? [`[${i}]`, `records[${i}]`, ''] : ['', '[0]', 'records[0]'];
    html += `<div class="rec">${treeNode(multi ? `record ${i}` : '', r, '', prefixes, 0)}</div>`;
  });
  ui.tree.innerHTML = html;
  for (const el of Array.from(ui.tree.querySelectorAll<HTMLElement>('.tn[data-span]'))) {
    const sp = el.dataset.span!;
    if (!treeBySpan.has(sp)) treeBySpan.set(sp, el);
  }
}

function renderFields(m: MessageView | undefined): void {
  fieldEls = [];
  const spans = m?.spans ?? [];
  if (spans.length === 0) {
    ui.fields.innerHTML = '<p class="note">The decoder recorded no spans for this message.</p>';
    return;
  }
  const layerOrder = new Map<string | undefined, number>([[undefined, 0]]);
  for (const s of spans) if (!layerOrder.has(s.layer)) layerOrder.set(s.layer, layerOrder.size);
  const sorted = spans.map((s, i) => ({ s, i })).sort((a, b) => layerOrder.get(a.s.layer)! - layerOrder.get(b.s.layer)! || a.s.start - b.s.start || b.s.end - a.s.end || a.i - b.i);
  let html = '';
  for (const { s, i } of sorted) {
    const depth = s.path.split(/[.[]/).length - 1;
    html += `<div class="fld" data-i="${i}" style="padding-left:${depth * 1.1 + 0.3}em"><span class="p">${esc(s.path || '(message)')}</span> <span class="kd">${esc(s.kind)}</span> <span class="rg">${s.layer !== undefined ? `${esc(s.layer)}:` : ''}${rng(s.start, s.end)}</span></div>`;
  }
  ui.fields.innerHTML = html;
  fieldEls = Array.from(ui.fields.querySelectorAll<HTMLElement>('.fld'));
}

// -- hex

function renderHex(m: MessageView | undefined): void {
  cells = new Map();
  ui.hex.innerHTML = '';
  if (m === undefined) return;
  const bufs = buffersOf(m);
  if (bufs.length === 0) {
    ui.hex.innerHTML = '<p class="note">This message came out of a capture file: the family’s file decoder gives its records but not its bytes.</p>';
    return;
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
          const c = `b${gap}${ec !== undefined ? ` ${ec}` : ''}${i === errHere ? ' err' : ''}`;
          hx += `<span class="${c}" data-o="${i}">${HEX2[b]}</span>`;
          asc += `<span class="a" data-o="${i}">${b >= 0x20 && b < 0x7f ? esc(String.fromCharCode(b)) : '.'}</span>`;
        } else if (i === errHere) {
          hx += `<span class="b err eof${gap}" data-o="${i}" title="end of input">··</span>`;
        } else {
          hx += `<span class="pad${gap}">  </span>`;
        }
        if (i < r * 16 + 15) hx += ' ';
      }
      html += `<div class="row"><span class="off">${(r * 16).toString(16).padStart(digits, '0')}</span><span class="hx">${hx}</span><span class="asc">${asc}</span></div>`;
    }
    html += '</div>';
  }
  ui.hex.innerHTML = html;
  for (const el of Array.from(ui.hex.querySelectorAll<HTMLElement>('.buf'))) {
    const layer = el.dataset.layer ?? '';
    const bytes: HTMLElement[] = [];
    const ascii: HTMLElement[] = [];
    for (const b of Array.from(el.querySelectorAll<HTMLElement>('.b'))) bytes[Number(b.dataset.o)] = b;
    for (const a of Array.from(el.querySelectorAll<HTMLElement>('.a'))) ascii[Number(a.dataset.o)] = a;
    cells.set(layer, { bytes, ascii, length: bufs.find((x) => x[0] === layer)?.[1].length ?? 0 });
  }
  const err = ui.hex.querySelector<HTMLElement>('.b.err');
  if (err !== null) {
    err.title = m.error!.message;
    err.scrollIntoView({ block: 'center' });
  }
}

function entityClasses(ranges: EntityByteRange[]): Map<string, string[]> {
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

function renderEntityRanges(m: MessageView | undefined): void {
  const ranges = m?.entities ?? [];
  if (ranges.length === 0) {
    ui.entRanges.innerHTML = '';
    return;
  }
  const colour = new Map<string, number>();
  let html = '<span class="muted">bytes by entity: </span>';
  ranges.forEach((r, i) => {
    if (!colour.has(r.id)) colour.set(r.id, colour.size % 6);
    html += `<span class="ent e${colour.get(r.id)!}" data-i="${i}" title="${esc(rangeText(r))}">${esc(r.id)} <span class="muted">${r.layer !== undefined ? `${esc(r.layer)}:` : ''}${rng(r.start, r.end)} (${r.end - r.start} B)</span></span>`;
  });
  ui.entRanges.innerHTML = html;
}

// -- highlighting

function paint(range: Span | undefined, cls: string, on: boolean): void {
  if (range === undefined) return;
  const c = cells.get(range.layer ?? '');
  if (c === undefined) return;
  const end = Math.min(range.end, c.bytes.length);
  for (let i = Math.max(0, range.start); i < end; i++) {
    c.bytes[i]?.classList.toggle(cls, on);
    c.ascii[i]?.classList.toggle(cls, on);
  }
}

function setHover(range: Span | undefined, treeEl: HTMLElement | undefined): void {
  paint(hoverRange, 'hl', false);
  hoverTree?.classList.remove('hl');
  hoverRange = range;
  hoverTree = treeEl;
  paint(hoverRange, 'hl', true);
  hoverTree?.classList.add('hl');
  setStatus(range ?? selected);
}

function setSelected(range: Span | undefined, treeEl: HTMLElement | undefined): void {
  paint(selected, 'sel', false);
  selectedTree?.classList.remove('sel');
  selected = range;
  selectedTree = treeEl;
  paint(selected, 'sel', true);
  selectedTree?.classList.add('sel');
  setStatus(hoverRange ?? selected);
}

function setStatus(s: Span | undefined): void {
  if (s === undefined) {
    ui.status.textContent = 'hover a field or a byte · click to select';
    delete ui.status.dataset.start;
    delete ui.status.dataset.end;
    return;
  }
  ui.status.innerHTML = `<b>${esc(s.path || '(message)')}</b> · ${esc(s.kind)} · ${esc(rangeText(s))}`;
  ui.status.dataset.start = String(s.start);
  ui.status.dataset.end = String(s.end);
}

/** The element itself when shown, else the header of its outermost closed ancestor. */
function visibleTreeEl(el: HTMLElement | undefined): HTMLElement | undefined {
  let out = el;
  let node = el?.parentElement?.closest<HTMLElement>('.node.closed');
  while (node) {
    out = node.querySelector<HTMLElement>(':scope > .tn') ?? out;
    node = node.parentElement?.closest<HTMLElement>('.node.closed');
  }
  return out;
}

/** Open every closed ancestor of a tree node. */
function revealTreeEl(el: HTMLElement): void {
  let node = el.parentElement?.parentElement?.closest<HTMLElement>('.node');
  while (node) {
    if (node.classList.contains('closed')) {
      node.classList.remove('closed');
      const tog = node.querySelector<HTMLElement>(':scope > .tn > .tog');
      if (tog) tog.textContent = '▾';
    }
    node = node.parentElement?.closest<HTMLElement>('.node');
  }
}

/** Tree node for a span: its own, else the nearest ancestor shown in the tree. */
function treeElFor(path: string): HTMLElement | undefined {
  let p: string | undefined = path;
  while (p !== undefined) {
    const el = treeBySpan.get(p);
    if (el !== undefined) return el;
    if (p === '') break;
    p = parentPath(p);
  }
  return undefined;
}

function rangeOfTreeEl(el: HTMLElement): Span | undefined {
  const sp = el.dataset.span;
  return sp === undefined ? undefined : index.rangeOf(sp);
}

function byteTarget(ev: Event): { layer: string; offset: number } | undefined {
  const t = ev.target as HTMLElement;
  if (!(t.classList.contains('b') || t.classList.contains('a')) || t.dataset.o === undefined) return undefined;
  const buf = t.closest<HTMLElement>('.buf');
  return { layer: buf?.dataset.layer ?? '', offset: Number(t.dataset.o) };
}

function spanAtByte(layer: string, offset: number): Span | undefined {
  return index.innermost(offset, layer === '' ? undefined : layer);
}

// ---------------------------------------------------------------- state table

function renderState(t: EntityTable | undefined): void {
  if (t === undefined) {
    ui.state.innerHTML = `<p class="note">${session === undefined || session.messages.length === 0 ? '' : 'This family keeps no client-side entity table for this input.'}</p>`;
    ui.stateSummary.textContent = '';
    return;
  }
  const q = ui.filter.value.trim().toLowerCase();
  const only = ui.onlyChanged.checked;
  const changedRows = t.rows.filter((r) => r.changed.length > 0 || r.created).length;
  ui.stateSummary.textContent = `after message ${current + 1}: ${plural(t.rows.length, 'entity').replace('entitys', 'entities')}, ${changedRows} changed or new, ${t.removed.length} removed`;
  let html = '<table><thead><tr><th>id</th><th>type</th><th>fields (changed by this message highlighted)</th></tr></thead><tbody>';
  for (const r of t.rows) {
    const changed = new Set(r.changed);
    if (only && changed.size === 0 && !r.created) continue;
    const fields = Object.entries(r.fields ?? {});
    if (q !== '' && !(r.id.toLowerCase().includes(q) || r.type.toLowerCase().includes(q) || fields.some(([k]) => k.toLowerCase().includes(q)))) continue;
    const cls = [r.created ? 'created' : '', changed.size > 0 ? 'changed' : ''].filter(Boolean).join(' ');
    const fs = fields
      .map(([k, v]) => {
        const shown = fmtValue(v);
        const title = shown.endsWith('…') ? ` title="${esc(JSON.stringify(v))}"` : '';
        return `<span class="f${changed.has(k) ? ' changed' : ''}" data-field="${esc(k)}"${title}><b>${esc(k)}</b>=${esc(shown)}</span>`;
      })
      .join('');
    html += `<tr class="${cls}" data-id="${esc(r.id)}"><td class="id">${esc(r.id)}</td><td>${esc(r.type)}</td><td>${fs}</td></tr>`;
  }
  html += '</tbody></table>';
  if (t.removed.length > 0) html += `<div class="removed">removed by this message: ${t.removed.map((id) => `<s data-id="${esc(id)}">${esc(id)}</s>`).join('')}</div>`;
  ui.state.innerHTML = html;
}

// ---------------------------------------------------------------- events

function wire(): void {
  ui.sample.addEventListener('change', () => {
    if (ui.sample.value !== '') void loadSample(ui.sample.value);
  });
  ui.family.addEventListener('change', () => {
    renderOptions();
    if (last !== undefined && last.kind !== 'sample') runInput({ ...last, family: familyByName(ui.family.value)! }, currentOptions());
  });
  ui.options.addEventListener('change', () => {
    if (last !== undefined && last.family.name === ui.family.value) runInput(last, currentOptions());
  });
  ui.pasteToggle.addEventListener('click', () => {
    ui.paste.hidden = !ui.paste.hidden;
    if (!ui.paste.hidden) ui.hexInput.focus();
  });
  ui.decodeHex.addEventListener('click', decodePaste);
  ui.hexInput.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) decodePaste();
  });
  ui.file.addEventListener('change', () => {
    const f = ui.file.files?.[0];
    if (f !== undefined) void loadFile(f);
    ui.file.value = '';
  });
  ui.prev.addEventListener('click', () => show(current - 1));
  ui.next.addEventListener('click', () => show(current + 1));
  ui.step.addEventListener('input', () => show(Number(ui.step.value)));
  ui.nextError.addEventListener('click', () => {
    const ms = session?.messages ?? [];
    let i = ms.findIndex((m, j) => j > current && m.error !== undefined);
    if (i < 0) i = ms.findIndex((m) => m.error !== undefined);
    if (i >= 0) show(i);
  });
  document.addEventListener('keydown', (e) => {
    const t = e.target as HTMLElement;
    if (t.closest('input, textarea, select')) return;
    if (e.key === 'ArrowLeft' || e.key === 'k') show(current - 1);
    else if (e.key === 'ArrowRight' || e.key === 'j') show(current + 1);
    else if (e.key === 'Escape') setSelected(undefined, undefined);
  });
  ui.filter.addEventListener('input', () => renderState(session?.messages[current]?.state));
  ui.onlyChanged.addEventListener('change', () => renderState(session?.messages[current]?.state));

  for (const b of Array.from(document.querySelectorAll<HTMLButtonElement>('.tabs button'))) {
    b.addEventListener('click', () => {
      for (const x of Array.from(document.querySelectorAll<HTMLButtonElement>('.tabs button'))) x.classList.toggle('on', x === b);
      ui.tree.hidden = b.dataset.tab !== 'tree';
      ui.fields.hidden = b.dataset.tab !== 'fields';
    });
  }

  // tree -> bytes
  ui.tree.addEventListener('mouseover', (e) => {
    const el = (e.target as HTMLElement).closest<HTMLElement>('.tn');
    if (el === null) return setHover(undefined, undefined);
    const r = rangeOfTreeEl(el);
    setHover(r, r !== undefined ? el : undefined);
    if (r !== undefined) scrollToByte(r);
  });
  ui.tree.addEventListener('mouseleave', () => setHover(undefined, undefined));
  ui.tree.addEventListener('click', (e) => {
    const t = e.target as HTMLElement;
    const el = t.closest<HTMLElement>('.tn');
    if (el === null) return;
    if (t.classList.contains('tog')) {
      const node = el.parentElement!;
      node.classList.toggle('closed');
      t.textContent = node.classList.contains('closed') ? '▸' : '▾';
      return;
    }
    const r = rangeOfTreeEl(el);
    if (r === undefined) return;
    if (selectedTree === el) setSelected(undefined, undefined);
    else setSelected(r, el);
  });

  // fields list -> bytes
  ui.fields.addEventListener('mouseover', (e) => {
    const el = (e.target as HTMLElement).closest<HTMLElement>('.fld');
    const s = el === null ? undefined : session?.messages[current]?.spans[Number(el.dataset.i)];
    for (const f of fieldEls) f.classList.toggle('hl', f === el);
    setHover(s, undefined);
    if (s !== undefined) scrollToByte(s);
  });
  ui.fields.addEventListener('mouseleave', () => {
    for (const f of fieldEls) f.classList.remove('hl');
    setHover(undefined, undefined);
  });
  ui.fields.addEventListener('click', (e) => {
    const el = (e.target as HTMLElement).closest<HTMLElement>('.fld');
    const s = el === null ? undefined : session?.messages[current]?.spans[Number(el.dataset.i)];
    setSelected(s === selected ? undefined : s, undefined);
  });

  // bytes -> tree
  ui.hex.addEventListener('mouseover', (e) => {
    const t = byteTarget(e);
    if (t === undefined) return;
    const s = spanAtByte(t.layer, t.offset);
    if (s === undefined) {
      setHover(undefined, undefined);
      ui.status.textContent = `${t.layer !== '' ? `${t.layer} ` : ''}byte ${t.offset} (0x${t.offset.toString(16)}): no field recorded here`;
      return;
    }
    const el = visibleTreeEl(treeElFor(s.path));
    setHover(s, el);
    el?.scrollIntoView({ block: 'nearest' });
  });
  ui.hex.addEventListener('mouseleave', () => setHover(undefined, undefined));
  ui.hex.addEventListener('click', (e) => {
    const t = byteTarget(e);
    if (t === undefined) return;
    const s = spanAtByte(t.layer, t.offset);
    if (s === undefined || (selected !== undefined && s.path === selected.path && s.layer === selected.layer)) setSelected(undefined, undefined);
    else {
      const el = treeElFor(s.path);
      if (el !== undefined) {
        revealTreeEl(el);
        el.scrollIntoView({ block: 'nearest' });
      }
      setSelected(s, el);
    }
  });

  // entity ranges -> bytes
  ui.entRanges.addEventListener('mouseover', (e) => {
    const el = (e.target as HTMLElement).closest<HTMLElement>('.ent');
    const r = el === null ? undefined : session?.messages[current]?.entities[Number(el.dataset.i)];
    if (r === undefined) return setHover(undefined, undefined);
    const span: Span = { start: r.start, end: r.end, path: `entity ${r.id}`, kind: 'entity', ...(r.layer !== undefined ? { layer: r.layer } : {}) };
    setHover(span, undefined);
    scrollToByte(span);
  });
  ui.entRanges.addEventListener('mouseleave', () => setHover(undefined, undefined));
  // state rows -> bytes of that entity in this message
  ui.state.addEventListener('mouseover', (e) => {
    const tr = (e.target as HTMLElement).closest<HTMLElement>('tr[data-id]');
    const ranges = session?.messages[current]?.entities.filter((r) => r.id === tr?.dataset.id) ?? [];
    const r = ranges[0];
    if (r === undefined) return setHover(undefined, undefined);
    setHover({ start: r.start, end: r.end, path: `entity ${r.id}`, kind: 'entity', ...(r.layer !== undefined ? { layer: r.layer } : {}) }, undefined);
  });
  ui.state.addEventListener('mouseleave', () => setHover(undefined, undefined));

  // drag and drop anywhere
  let depth = 0;
  document.addEventListener('dragenter', (e) => {
    e.preventDefault();
    depth++;
    ui.drop.hidden = false;
  });
  document.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) ui.drop.hidden = true;
  });
  document.addEventListener('dragover', (e) => e.preventDefault());
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    ui.drop.hidden = true;
    const f = e.dataTransfer?.files[0];
    if (f !== undefined) void loadFile(f);
  });
}

function scrollToByte(s: Span): void {
  const el = cells.get(s.layer ?? '')?.bytes[s.start];
  el?.scrollIntoView({ block: 'nearest' });
}

// ---------------------------------------------------------------- start

window.addEventListener('error', (e) => showPageError(e.error ?? e.message));
window.addEventListener('unhandledrejection', (e) => showPageError(e.reason));

fillSelectors();
wire();
{
  const m = /sample=([^&]+)/.exec(location.hash);
  const fromHash = m ? decodeURIComponent(m[1]!) : undefined;
  const first = FAMILIES.find((f) => f.samples.length > 0);
  const key = fromHash ?? (first !== undefined ? `${first.name}/${first.samples[0]!.id}` : undefined);
  if (key !== undefined) void loadSample(key);
  else {
    ui.tree.innerHTML = '<p class="note">No bundled samples yet: paste hex or drop a file.</p>';
    document.body.dataset.state = 'ready';
  }
}
