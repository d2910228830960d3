/**
 * Spans of Teeworlds snapshot records (paths as in the JSON record), shared by
 * the stream decoder (`teeworlds.ts`), the capture reader (`teeworlds-net.ts`)
 * and the demo reader (`teeworlds-demo.ts`): the message fields, then every
 * delta int at the item field it changes.
 */
import type { Span } from '../core/index.js';
import { type DeltaSpans, intOffsets, itemTypeInfo, type ItemTypeInfo, type Snapshot, type TwVersion, type TypedItem } from '../protocols/teeworlds/index.js';

/** Collects what the delta decoder reports (byte ranges of ints), to turn into spans once the snapshot is built. */
export class DeltaSpanLog implements DeltaSpans {
  readonly header: DeltaSpans['header'];
  readonly events: number[] = []; // [what, index, key, k, start, end, sizeStart, sizeEnd]
  readonly heads: [string, number, number][] = [];
  constructor() {
    this.header = (name, start, end) => void this.heads.push([name, start, end]);
  }
  deleted(index: number, key: number, start: number, end: number): void {
    this.events.push(0, index, key, 0, start, end, 0, 0);
  }
  record(index: number, key: number, start: number, end: number, sizeStart: number, sizeEnd: number): void {
    this.events.push(1, index, key, 0, start, end, sizeStart, sizeEnd);
  }
  dataInt(index: number, key: number, k: number, start: number, end: number): void {
    this.events.push(2, index, key, k, start, end, 0, 0);
  }
}

/** Paths inside `fields` of each data int of an item type (by its field specs). */
export function fieldPaths(info: ItemTypeInfo, size: number): string[] {
  const out: string[] = [];
  if (!info.known) return out;
  if (info.name === 'UuidDeclaration' && size === 4) return ['uuid', 'uuid', 'uuid', 'uuid'];
  for (const spec of info.fields) {
    const m = /^([A-Za-z0-9_]+)(?::([sa])(\d+)(?:x(\d+))?)?$/.exec(spec)!;
    const name = m[1]!;
    const n = m[3] === undefined ? 1 : Number(m[3]);
    const total = m[4] === undefined ? n : n * Number(m[4]);
    if (out.length + total > size) break;
    for (let k = 0; k < total; k++) {
      if (m[2] === undefined || (m[2] === 's' && m[4] === undefined)) out.push(name);
      else if (m[2] === 'a') out.push(`${name}[${k}]`);
      else out.push(`${name}[${Math.floor(k / n)}]`);
    }
  }
  const known = out.length;
  for (let k = known; k < size; k++) out.push(`extra[${k - known}]`);
  return out;
}

// Outer message fields → record paths. `part` goes with `numParts`; the part's
// size and bytes build the items (the delta layer shows them in detail).
const OUTER_PATHS: Record<string, string[]> = {
  msgId: ['kind', 'version'],
  tick: ['tick'],
  delta: ['deltaTick'],
  numParts: ['numParts'],
  part: ['numParts'],
  crc: ['crc'],
  partSize: ['items'],
  data: ['items'],
};

/** Receives one span: path in the record's JSON, byte range, kind, and the layer (`delta`, `ints`; none for the message). */
export type SpanAdder = (path: string, start: number, end: number, kind: string, layer?: 'delta' | 'ints') => void;

/**
 * The spans of one snapshot message's record: the message fields (`outerSpans`,
 * as the message decoder recorded them), then every delta int at the field it
 * changes (in the `delta` layer, the varint bytes, and the `ints` layer, 4 bytes
 * per int). Shared by the stream decoder and the capture and demo readers.
 */
export function snapshotSpans(
  add: SpanAdder,
  outerSpans: readonly Span[],
  log: DeltaSpanLog | undefined,
  blob: Uint8Array | undefined,
  snap: Snapshot | undefined,
  rec: { kind: string; items?: TypedItem[] | undefined },
  version: TwVersion,
  declarations: ReadonlyMap<number, string>,
  /** Leave out the delta header and deletions (`numDeleted`, `numUpdated`, `deleted[]`): for records that do not carry them. */
  itemsOnly = false,
): void {
  const outer = { spans: outerSpans };
  if (itemsOnly) {
    const inner = add;
    add = (path, start, end, kind, layer) => {
      if (!path.startsWith('numDeleted') && !path.startsWith('numUpdated') && !path.startsWith('deleted[')) inner(path, start, end, kind, layer);
    };
  }
  for (const s of outer.spans) {
    for (const p of OUTER_PATHS[s.path] ?? []) add(p, s.start, s.end, s.kind);
    // SNAPSINGLE and SNAPEMPTY are one part by their id
    if (s.path === 'msgId' && rec.kind !== 'snap') add('numParts', s.start, s.end, s.kind);
  }
  if (log === undefined || blob === undefined || blob.length === 0 || snap === undefined || rec.items === undefined) return;
  // int index of each int's first byte, for the `ints` layer (4 bytes per int)
  const pos = intOffsets(blob, 0, blob.length);
  const intAt = new Map<number, number>();
  for (let i = 0; i < pos.length - 1; i++) intAt.set(pos[i]!, i);
  const both = (path: string, start: number, end: number) => {
    add(path, start, end, 'varint', 'delta');
    const a = intAt.get(start);
    const b = end >= blob.length ? pos.length - 1 : intAt.get(end);
    if (a !== undefined && b !== undefined) add(path, a * 4, b * 4, 'i32', 'ints');
  };
  for (const [name, start, end] of log.heads) if (name !== 'numTemp') both(name, start, end);
  const ev = log.events;
  const paths = new Map<number, string[]>();
  for (let e = 0; e < ev.length; e += 8) {
    const what = ev[e]!;
    const key = ev[e + 2]!;
    const start = ev[e + 4]!;
    const end = ev[e + 5]!;
    if (what === 0) {
      const d = ev[e + 1]!;
      both(`deleted[${d}].type`, start, end);
      both(`deleted[${d}].id`, start, end);
      continue;
    }
    const i = snap.indexOf(key);
    if (i < 0) continue;
    const item = rec.items[i]!;
    const p = `items[${i}]`;
    if (what === 1) {
      for (const f of ['type', 'id', 'typeName', 'event', 'uuidName'] as const) if (item[f] !== undefined) both(`${p}.${f}`, start, end);
      if (ev[e + 7]! > ev[e + 6]!) both(`${p}.data`, ev[e + 6]!, ev[e + 7]!);
      continue;
    }
    const k = ev[e + 3]!;
    both(`${p}.data[${k}]`, start, end);
    if (item.fields !== undefined) {
      let fp = paths.get(key);
      if (fp === undefined) paths.set(key, (fp = fieldPaths(itemTypeInfo(version, item.type, declarations), item.data.length)));
      const f = fp[k];
      if (f !== undefined && fieldExists(item.fields, f)) both(`${p}.fields.${f}`, start, end);
      if (f === 'uuid' && item.fields.uuidName !== undefined) both(`${p}.fields.uuidName`, start, end);
    }
  }
}

/** Whether `fields.<path>` names a value (`name`, `name[3]`). */
export function fieldExists(fields: Record<string, unknown>, path: string): boolean {
  const b = path.indexOf('[');
  if (b < 0) return fields[path] !== undefined;
  const v = fields[path.slice(0, b)];
  return Array.isArray(v) && Number(path.slice(b + 1, -1)) < v.length;
}
