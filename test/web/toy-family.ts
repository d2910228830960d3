/**
 * A tiny made-up family, used only by the inspector's tests, so that the page can be
 * tested before (and independently of) the real families.
 *
 * One message:
 *   u8 magic        0x7e: plain body follows; 0x7f: u16le inflated size + zlib body
 *   u8 count
 *   count x entity:
 *     vu32 id
 *     u8 flags      bit0 x, bit1 y, bit2 name, bit7 remove
 *     [i16le x] [i16le y] [u8 len, utf8 name]
 *
 * A capture file (for the `decodeFile` path, like a pcap): ASCII "TOYCAP", then
 * records of u16le length + one message.
 */
import { ByteReader, DecodeError, EncodeError, inflateZlib, rethrowAt, type SpanSink } from '../../src/core/index.js';
import type { DecodedMessage, EntityByteRange, EntityRow, EntityTable, FamilyAdapter, OptionValues } from '../../src/families/types.js';

export interface ToyEntity {
  id: number;
  remove?: true;
  x?: number;
  y?: number;
  name?: string;
}

function readBody(r: ByteReader, spans: SpanSink | undefined, ranges: EntityByteRange[]): ToyEntity[] {
  const count = r.count(r.u8('count'), 2, 255, 'toyCount', 'count');
  const out: ToyEntity[] = [];
  if (spans !== undefined) spans.push('entities');
  for (let i = 0; i < count; i++) {
    const start = r.pos;
    if (spans !== undefined) spans.push(`[${i}]`);
    try {
      const e: ToyEntity = { id: r.vu32('id') };
      const flags = r.u8('flags');
      if (flags & 0x78) throw new DecodeError(r.pos - 1, 'flags', 'flag bits 0-2 and 7 only', `0x${flags.toString(16)}`);
      if (flags & 0x80) e.remove = true;
      if (flags & 1) e.x = r.i16le('x');
      if (flags & 2) e.y = r.i16le('y');
      if (flags & 4) {
        const n = r.u8('nameLength');
        e.name = r.utf8(n, 'name');
      }
      out.push(e);
    } catch (err) {
      throw rethrowAt(err, `entities[${i}]`, r.pos);
    }
    if (spans !== undefined) {
      spans.pop();
      spans.add(`[${i}]`, start, r.pos, 'struct');
    }
    ranges.push(spans?.layer !== undefined ? { id: String(out[i]!.id), start, end: r.pos, layer: spans.layer } : { id: String(out[i]!.id), start, end: r.pos });
  }
  if (spans !== undefined) spans.pop();
  return out;
}

/** Decode one toy message (stateless part). */
export function decodeToy(bytes: Uint8Array, spans?: SpanSink): DecodedMessage & { entitiesList: ToyEntity[] } {
  const r = new ByteReader(bytes, 0, bytes.length, spans);
  const magic = r.u8('magic');
  const ranges: EntityByteRange[] = [];
  let list: ToyEntity[];
  const layers: Record<string, Uint8Array> = {};
  if (magic === 0x7e) {
    list = readBody(r, spans, ranges);
    r.expectEnd();
  } else if (magic === 0x7f) {
    const size = r.u16le('inflatedSize');
    const start = r.pos;
    const zbody = r.rest();
    if (spans !== undefined) spans.add('body', start, bytes.length, 'zlib');
    let inner: Uint8Array;
    try {
      inner = inflateZlib(zbody, { expectedSize: size, maxOutput: 1 << 16 });
    } catch (e) {
      throw (e as DecodeError).shifted(start);
    }
    layers.zlib = inner;
    const ir = new ByteReader(inner, 0, inner.length, spans);
    // like a real decoder: the layer is left set when the body throws, so the error's
    // offset can be told to be one in the inner buffer
    if (spans !== undefined) spans.layer = 'zlib';
    list = readBody(ir, spans, ranges);
    ir.expectEnd();
    if (spans !== undefined) spans.layer = undefined;
  } else {
    throw new DecodeError(0, 'magic', '0x7e or 0x7f', `0x${magic.toString(16)}`);
  }
  const rec = { type: 'toy.update', compressed: magic === 0x7f, entities: list };
  return { records: [rec], layers, entities: ranges, entitiesList: list };
}

class ToyDecoder {
  private readonly table = new Map<number, Record<string, unknown>>();
  private changed = new Map<number, string[]>();
  private created = new Set<number>();
  private removed: string[] = [];

  decode(bytes: Uint8Array, spans?: SpanSink): DecodedMessage {
    const d = decodeToy(bytes, spans);
    this.apply(d.entitiesList);
    return { records: d.records, layers: d.layers, entities: d.entities };
  }

  apply(list: ToyEntity[]): void {
    this.changed = new Map();
    this.created = new Set();
    this.removed = [];
    for (const e of list) {
      if (e.remove) {
        if (this.table.delete(e.id)) this.removed.push(String(e.id));
        continue;
      }
      let row = this.table.get(e.id);
      if (row === undefined) {
        row = {};
        this.table.set(e.id, row);
        this.created.add(e.id);
      }
      const ch = this.changed.get(e.id) ?? [];
      for (const k of ['x', 'y', 'name'] as const) {
        if (e[k] !== undefined && row[k] !== e[k]) {
          row[k] = e[k];
          ch.push(k);
        }
      }
      this.changed.set(e.id, ch);
    }
  }

  state(): EntityTable {
    const rows: EntityRow[] = [];
    for (const [id, fields] of [...this.table].sort((a, b) => a[0] - b[0])) {
      const row: EntityRow = { id: String(id), type: 'Toy', fields: { ...fields }, changed: this.changed.get(id) ?? [] };
      if (this.created.has(id)) row.created = true;
      rows.push(row);
    }
    return { rows, removed: this.removed };
  }
}

const MAGIC = [0x54, 0x4f, 0x59, 0x43, 0x41, 0x50]; // TOYCAP

export const toy: FamilyAdapter = {
  name: 'toy',
  summary: 'a made-up family for the inspector tests',
  options: {
    flavour: { type: 'string', description: 'does nothing', choices: ['plain', 'fancy'], default: 'plain' },
  },
  samples: [
    { id: 'stream', title: 'Toy stream (4 messages)', path: 'test/web/toy-samples/stream.hex', format: 'hex-lines' },
    { id: 'one', title: 'Toy single message', path: 'test/web/toy-samples/one.bin', format: 'binary' },
    { id: 'cap', title: 'Toy capture', path: 'test/web/toy-samples/cap.toycap', format: 'pcap' },
  ],
  createDecoder(_opts: OptionValues) {
    return new ToyDecoder();
  },
  createEncoder() {
    return {
      encode() {
        throw new EncodeError('', 'the toy family has no encoder');
      },
    };
  },
  decodeFile(bytes: Uint8Array): Iterable<DecodedMessage> | undefined {
    if (bytes.length < 6 || MAGIC.some((b, i) => bytes[i] !== b)) return undefined;
    return (function* () {
      const dec = new ToyDecoder();
      const r = new ByteReader(bytes, 6);
      let i = 0;
      while (!r.done) {
        const start = r.pos;
        const n = r.u16le('length');
        const msg = r.bytesView(n, 'message');
        try {
          yield dec.decode(msg);
        } catch (e) {
          throw rethrowAt(e, `records[${i}]`, start).shifted(start + 2);
        }
        i++;
      }
    })();
  },
};
