/**
 * The inspector page (browser side). Bundled by src/web/build.ts with the family
 * adapters; all decoding goes through them (see model.ts). The views live in their
 * own modules: tree.ts, hex.ts, packets.ts, history.ts, stats-view.ts.
 */
import { FAMILIES } from '../../families/registry.js';
import type { EntityTable, FamilyAdapter, FamilyOption, OptionValues, Sample } from '../../families/types.js';
import type { Span } from '../../core/index.js';
import { esc, fmtValue, plural, rangeText, rng, ui } from './dom.js';
import { paint, renderEntityRanges, renderHex, type Cells } from './hex.js';
import { renderHistory } from './history.js';
import { decodeFileBytes, decodePastedHex, nodeKey, optionsFor, parentPath, SpanIndex, stateTableAt, type MessageView, type Session } from './model.js';
import { PacketList } from './packets.js';
import { renderStatsView } from './stats-view.js';
import { renderTree } from './tree.js';
import type { LoadReply } from './worker.js';

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
let cells: Cells = new Map();
/** Tree nodes by key (`record|path`). */
let treeByKey = new Map<string, HTMLElement>();
let fieldEls: HTMLElement[] = [];
let hoverRange: Span | undefined;
let selected: Span | undefined;
let hoverTree: HTMLElement | undefined;
let selectedTree: HTMLElement | undefined;
let tab = 'tree';
/** The last rebuilt state (stepping forward applies one diff to it). */
let stateCache: Parameters<typeof stateTableAt>[2];
const packets = new PacketList(ui.pktList, ui.pktCount);

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

/** Options that make sense on the page: not those of the live client (`watch`) nor file-path ones (`--pcap FILE`). */
function optionOnPage(o: FamilyOption): boolean {
  return (o as { inputFile?: boolean }).inputFile !== true && !/^watch\b/i.test(o.description);
}

function renderOptions(values?: OptionValues): void {
  const f = familyByName(ui.family.value);
  if (f === undefined) return;
  const v = optionsFor(f, values);
  let html = '';
  for (const [k, o] of Object.entries(f.options)) {
    if (!optionOnPage(o)) continue;
    const title = esc(o.description);
    if (o.type === 'boolean')
      html += `<label title="${title}"><input type="checkbox" data-opt="${esc(k)}"${v[k] === true ? ' checked' : ''}> ${esc(k)}</label>`;
    else if (o.choices)
      // an option without a default (Teeworlds' `version`: detected from the input) starts unset: a
      // select without an empty choice would silently pass its first choice instead
      html += `<label title="${title}">${esc(k)} <select data-opt="${esc(k)}">${o.default === undefined ? `<option value=""${v[k] === undefined ? ' selected' : ''}>(detect)</option>` : ''}${o.choices.map((c) => `<option${v[k] === c ? ' selected' : ''}>${esc(c)}</option>`).join('')}</select></label>`;
    else html += `<label title="${title}">${esc(k)} <input size="8" data-opt="${esc(k)}" value="${esc(String(v[k] ?? ''))}"></label>`;
  }
  ui.options.innerHTML = html;
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

let worker: Worker | undefined;
let loadId = 0;
/** True while the worker is still sending messages of the current input. */
let loading = false;

function getWorker(): Worker | undefined {
  if (worker === undefined) {
    try {
      worker = new Worker('worker.js', { type: 'module' });
      worker.onerror = (e) => showPageError(new Error(`decoding worker: ${e.message}`));
    } catch {
      return undefined;
    }
  }
  return worker;
}

function runInput(input: LastInput, options: OptionValues): void {
  last = input;
  const f = input.family;
  const opts = optionsFor(f, { ...input.baseOptions, ...options });
  ui.history.hidden = true;
  stateCache = undefined;
  current = 0;
  const w = input.kind === 'paste' ? undefined : getWorker();
  if (w === undefined) {
    try {
      if (input.kind === 'paste') session = decodePastedHex(f, opts, input.text ?? '');
      else session = decodeFileBytes(f, opts, input.name, input.bytes ?? new Uint8Array(), input.format);
    } catch (e) {
      showPageError(e);
      return;
    }
    finishLoad();
    return;
  }
  // decode in the worker; messages arrive in batches
  const id = ++loadId;
  const s: Session = { family: f, options: opts, source: input.name, kind: 'loading…', messages: [], inputError: undefined };
  session = s;
  packets.refresh(s.messages, ui.pktFilter.value, 0);
  loading = true;
  document.body.dataset.state = 'loading';
  ui.progress.hidden = false;
  ui.progress.removeAttribute('value');
  w.onmessage = (ev: MessageEvent<LoadReply>) => {
    const r = ev.data;
    if (r.id !== loadId || session !== s) return;
    if (r.type === 'start') {
      s.kind = r.kind;
      s.inputError = r.inputError;
      if (r.total !== undefined) ui.progress.max = Math.max(1, r.total);
    } else if (r.type === 'batch') {
      for (const m of r.messages) s.messages.push(m);
      if (r.total !== undefined) ui.progress.value = r.done;
      if (s.messages.length === r.messages.length) {
        packets.refresh(s.messages, ui.pktFilter.value, 0);
        show(0);
      } else updateNav();
    } else if (r.type === 'end') finishLoad();
    else showPageError(new Error(r.message));
  };
  w.postMessage({ id, family: f.name, options: opts, bytes: input.bytes ?? new Uint8Array(), ...(input.format !== undefined ? { format: input.format } : {}) });
}

function finishLoad(): void {
  loading = false;
  ui.progress.hidden = true;
  if (session === undefined) return;
  packets.refresh(session.messages, ui.pktFilter.value, current);
  if (tab === 'stats') renderStatsView(ui.stats, session.messages);
  show(current);
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
  const hash = `#sample=${encodeURIComponent(key)}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
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

const errorCounts = new WeakMap<Session, number>();
/** Messages with errors in a loaded session (counted once). */
function errorCount(s: Session): number {
  let n = errorCounts.get(s);
  if (n === undefined) errorCounts.set(s, (n = s.messages.filter((x) => x.error !== undefined).length));
  return n;
}

/** The stream controls (position, slider, buttons) for the messages loaded so far. */
function updateNav(): void {
  const s = session;
  if (s === undefined) return;
  const n = s.messages.length;
  ui.source.textContent = `${s.family.name} · ${s.source} · ${s.kind}`;
  ui.step.max = String(Math.max(0, n - 1));
  ui.step.value = String(current);
  ui.step.disabled = n <= 1;
  ui.prev.disabled = current <= 0;
  ui.next.disabled = current >= n - 1;
  ui.position.textContent = n === 0 ? (loading ? 'loading…' : 'no messages') : `message ${current + 1} of ${n}${loading ? ' (loading…)' : ''}`;
}

function show(i: number): void {
  const s = session;
  if (s === undefined) return;
  const n = s.messages.length;
  current = Math.max(0, Math.min(i, n - 1));
  const m = s.messages[current];
  updateNav();
  const errors = loading ? 0 : errorCount(s);
  ui.nextError.hidden = errors === 0 || n <= 1;
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
  treeByKey = renderTree(ui.tree, m, index, s.inputError !== undefined);
  renderFields(m);
  cells = renderHex(ui.hex, m);
  renderEntityRanges(ui.entRanges, m);
  renderState(currentState());
  packets.draw(s.messages, current);
  setStatus(undefined);
  if (!loading) document.body.dataset.state = 'ready';
  document.body.dataset.message = String(current);
}

function currentState(): EntityTable | undefined {
  if (session === undefined) return undefined;
  const r = stateTableAt(session.messages, current, stateCache);
  if (r === undefined) return undefined;
  stateCache = r.cache;
  return r.table;
}

function summaryOf(m: MessageView): string {
  const parts: string[] = [m.summary.type];
  if (m.summary.tick !== undefined) parts.push(`tick ${m.summary.tick}`);
  if (m.bytes !== undefined) parts.push(plural(m.bytes.length, 'byte'));
  for (const [k, v] of Object.entries(m.layers)) parts.push(`${k}: ${plural(v.length, 'byte')}`);
  parts.push(plural(m.records.length, 'record'));
  if (m.entities.length > 0) parts.push(plural(new Set(m.entities.map((e) => e.id)).size, 'entity'));
  if (m.error !== undefined) parts.push('decode error');
  return parts.join(' · ');
}

function renderErrorBanner(m: MessageView): void {
  const e = m.error!;
  const label = session!.messages.length > 1 ? `message ${m.index + 1}: ` : '';
  ui.error.innerHTML = '';
  const text = document.createElement('span');
  text.className = 'text';
  const inner =
    e.layer !== undefined
      ? ` (an offset in the inner buffer “${e.layer}”${m.layers[e.layer] === undefined ? ', which the failed decode did not return' : ''})`
      : '';
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

/** The Fields tab: every span; one whose (record, path) names no tree node is marked as an orphan. */
function renderFields(m: MessageView | undefined): void {
  fieldEls = [];
  const spans = m?.spans ?? [];
  if (spans.length === 0) {
    ui.fields.innerHTML = '<p class="note">The decoder recorded no spans for this message.</p>';
    return;
  }
  const layerOrder = new Map<string | undefined, number>([[undefined, 0]]);
  for (const s of spans) if (!layerOrder.has(s.layer)) layerOrder.set(s.layer, layerOrder.size);
  const sorted = spans
    .map((s, i) => ({ s, i }))
    .sort((a, b) => layerOrder.get(a.s.layer)! - layerOrder.get(b.s.layer)! || a.s.start - b.s.start || b.s.end - a.s.end || a.i - b.i);
  let html = '';
  for (const { s, i } of sorted) {
    const depth = s.path.split(/[.[]/).length - 1;
    const orphan = m!.records.length > 0 && !treeByKey.has(nodeKey(s.record ?? 0, s.path));
    html += `<div class="fld${orphan ? ' orphan' : ''}" data-i="${i}" style="padding-left:${depth * 1.1 + 0.3}em"${orphan ? ' title="no node of the decoded tree has this path"' : ''}><span class="p">${s.record ? `#${s.record} ` : ''}${esc(s.path || '(message)')}</span> <span class="kd">${esc(s.kind)}</span> <span class="rg">${s.layer !== undefined ? `${esc(s.layer)}:` : ''}${rng(s.start, s.end)}</span></div>`;
  }
  ui.fields.innerHTML = html;
  fieldEls = Array.from(ui.fields.querySelectorAll<HTMLElement>('.fld'));
}

function renderState(t: EntityTable | undefined): void {
  if (t === undefined) {
    ui.state.innerHTML = `<p class="note">${session === undefined || session.messages.length === 0 ? '' : 'This family keeps no client-side entity table for this input.'}</p>`;
    ui.stateSummary.textContent = '';
    return;
  }
  const q = ui.filter.value.trim().toLowerCase();
  const only = ui.onlyChanged.checked;
  const changedRows = t.rows.filter((r) => r.changed.length > 0 || r.created).length;
  ui.stateSummary.textContent = `after message ${current + 1}: ${plural(t.rows.length, 'entity')}, ${changedRows} changed or new, ${t.removed.length} removed · click a row for its history`;
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
  if (t.removed.length > 0)
    html += `<div class="removed">removed by this message: ${t.removed.map((id) => `<s data-id="${esc(id)}">${esc(id)}</s>`).join('')}</div>`;
  ui.state.innerHTML = html;
}

// ---------------------------------------------------------------- highlighting

function setHover(range: Span | undefined, treeEl: HTMLElement | undefined): void {
  paint(cells, hoverRange, 'hl', false);
  hoverTree?.classList.remove('hl');
  hoverRange = range;
  hoverTree = treeEl;
  paint(cells, hoverRange, 'hl', true);
  hoverTree?.classList.add('hl');
  setStatus(range ?? selected);
}

function setSelected(range: Span | undefined, treeEl: HTMLElement | undefined): void {
  paint(cells, selected, 'sel', false);
  selectedTree?.classList.remove('sel');
  selected = range;
  selectedTree = treeEl;
  paint(cells, selected, 'sel', true);
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
  ui.status.innerHTML = `<b>${s.record ? `#${s.record} ` : ''}${esc(s.path || '(message)')}</b> · ${esc(s.kind)} · ${esc(rangeText(s))}`;
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
function treeElFor(s: Span): HTMLElement | undefined {
  const r = s.record ?? 0;
  for (let p = s.path, guard = 0; guard < 64; p = parentPath(p), guard++) {
    const el = treeByKey.get(nodeKey(r, p));
    if (el !== undefined) return el;
    if (p === '') break;
  }
  return undefined;
}

function rangeOfTreeEl(el: HTMLElement): Span | undefined {
  const key = el.dataset.key;
  if (key === undefined) return undefined;
  const bar = key.indexOf('|');
  return index.rangeOf(Number(key.slice(0, bar)), key.slice(bar + 1));
}

function byteTarget(ev: Event): { layer: string; offset: number } | undefined {
  const t = ev.target as HTMLElement;
  if (!(t.classList.contains('b') || t.classList.contains('a')) || t.dataset.o === undefined) return undefined;
  return { layer: t.closest<HTMLElement>('.buf')?.dataset.layer ?? '', offset: Number(t.dataset.o) };
}

function spanAtByte(layer: string, offset: number): Span | undefined {
  return index.innermost(offset, layer === '' ? undefined : layer);
}

function scrollToByte(s: Span): void {
  cells.get(s.layer ?? '')?.bytes[s.start]?.scrollIntoView({ block: 'nearest' });
}

function entitySpan(m: MessageView | undefined, id: string | undefined): Span | undefined {
  const r = m?.entities.find((x) => x.id === id);
  return r === undefined
    ? undefined
    : { start: r.start, end: r.end, path: `entity ${r.id}`, kind: 'entity', ...(r.layer !== undefined ? { layer: r.layer } : {}) };
}

// ---------------------------------------------------------------- events

function setTab(name: string): void {
  tab = name;
  for (const x of Array.from(document.querySelectorAll<HTMLButtonElement>('.tabs button'))) x.classList.toggle('on', x.dataset.tab === name);
  ui.tree.hidden = name !== 'tree';
  ui.fields.hidden = name !== 'fields';
  ui.stats.hidden = name !== 'stats';
  if (name === 'stats' && session !== undefined) renderStatsView(ui.stats, session.messages);
}

function wireControls(): void {
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
    if ((e.target as HTMLElement).closest('input, textarea, select')) return;
    if (e.key === 'ArrowLeft' || e.key === 'k') show(current - 1);
    else if (e.key === 'ArrowRight' || e.key === 'j') show(current + 1);
    else if (e.key === 'Escape') setSelected(undefined, undefined);
  });
  ui.filter.addEventListener('input', () => renderState(currentState()));
  ui.onlyChanged.addEventListener('change', () => renderState(currentState()));
  for (const b of Array.from(document.querySelectorAll<HTMLButtonElement>('.tabs button'))) b.addEventListener('click', () => setTab(b.dataset.tab ?? 'tree'));
  // packet list: click selects; filter; jump to a tick
  ui.pktList.addEventListener('click', (e) => {
    const tr = (e.target as HTMLElement).closest<HTMLElement>('tr[data-i]');
    if (tr !== null) show(Number(tr.dataset.i));
  });
  ui.pktFilter.addEventListener('input', () => session && packets.refresh(session.messages, ui.pktFilter.value, current));
  ui.pktTick.addEventListener('change', () => {
    const t = Number(ui.pktTick.value);
    if (session === undefined || ui.pktTick.value.trim() === '' || !Number.isFinite(t)) return;
    const i = PacketList.findTick(session.messages, t);
    if (i !== undefined) show(i);
    else ui.pktCount.textContent = `no message at or after tick ${t}`;
  });
  window.addEventListener('hashchange', () => {
    const m = /sample=([^&]+)/.exec(location.hash);
    if (m) void loadSample(decodeURIComponent(m[1]!));
  });
}

function wireLinks(): void {
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
    setHover(s, s === undefined ? undefined : treeElFor(s));
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
    const el = visibleTreeEl(treeElFor(s));
    setHover(s, el);
    el?.scrollIntoView({ block: 'nearest' });
  });
  ui.hex.addEventListener('mouseleave', () => setHover(undefined, undefined));
  ui.hex.addEventListener('click', (e) => {
    const t = byteTarget(e);
    if (t === undefined) return;
    const s = spanAtByte(t.layer, t.offset);
    if (s === undefined || (selected !== undefined && s.path === selected.path && s.layer === selected.layer && s.record === selected.record))
      return setSelected(undefined, undefined);
    const el = treeElFor(s);
    if (el !== undefined) {
      revealTreeEl(el);
      el.scrollIntoView({ block: 'nearest' });
    }
    setSelected(s, el);
  });
  // entity ranges and state rows -> bytes; a state row click opens its history
  ui.entRanges.addEventListener('mouseover', (e) => {
    const el = (e.target as HTMLElement).closest<HTMLElement>('.ent');
    const r = el === null ? undefined : session?.messages[current]?.entities[Number(el.dataset.i)];
    const span = entitySpan(session?.messages[current], r?.id);
    setHover(span, undefined);
    if (span !== undefined) scrollToByte(span);
  });
  ui.entRanges.addEventListener('mouseleave', () => setHover(undefined, undefined));
  ui.state.addEventListener('mouseover', (e) => {
    const tr = (e.target as HTMLElement).closest<HTMLElement>('tr[data-id]');
    setHover(entitySpan(session?.messages[current], tr?.dataset.id), undefined);
  });
  ui.state.addEventListener('mouseleave', () => setHover(undefined, undefined));
  ui.state.addEventListener('click', (e) => {
    const tr = (e.target as HTMLElement).closest<HTMLElement>('tr[data-id]');
    if (tr !== null && session !== undefined) renderHistory(ui.history, session.messages, tr.dataset.id!);
  });
  ui.history.addEventListener('click', (e) => {
    const t = e.target as HTMLElement;
    if (t.closest('[data-close]')) ui.history.hidden = true;
    const hv = t.closest<HTMLElement>('.hv[data-i]');
    if (hv !== null) show(Number(hv.dataset.i));
  });
}

function wireDrop(): void {
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

// ---------------------------------------------------------------- start

window.addEventListener('error', (e) => showPageError(e.error ?? e.message));
window.addEventListener('unhandledrejection', (e) => showPageError(e.reason));

fillSelectors();
wireControls();
wireLinks();
wireDrop();
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
