/**
 * The `replication` family: packets of tickwire's own replication engine
 * (src/replication, docs/replication-wire.md), server → client, decoded with a
 * schema written by `schemaToJson(defs)`.
 *
 * The decoder keeps a `ReplicationClient` as its state (so deltas are applied
 * exactly as a real client would) and walks each packet's bits a second time,
 * with the engine's own field codec, to record where every value lives. Bit
 * positions become byte spans (a span covers every byte its bits touch).
 */
import { ByteReader } from '../core/reader.js';
import { DecodeError, EncodeError, atPath } from '../core/errors.js';
import { toJsonValue } from '../core/json.js';
import { SpanSink } from '../core/spans.js';
import { ByteWriter } from '../core/writer.js';
import {
  schemaFromJson,
  ReplicationClient,
  BUNDLE_MAGIC,
  STATE_MAGIC,
  bundleParts,
  type AnyEntityDef,
  type Field,
  type ReceiveResult,
  type ReplicatedEntity,
} from '../replication/index.js';
import {
  BitIn,
  BitOut,
  bitLength,
  defaultRaw,
  FloatBits,
  fromRaw,
  hex32,
  readField,
  readGamma,
  toRaw,
  varintBytes,
  writeBody,
  writeGamma,
} from '../replication/tools/index.js';
import { DEMO_SCHEMA_JSON } from './replication-demo.js';
import type { DecodedMessage, EntityByteRange, EntityRow, EntityTable, FamilyAdapter, OptionValues } from './types.js';

/** The schema from the `schema` option: JSON text itself, or the path of a JSON file (Node only). */
export function schemaOption(opts: OptionValues): AnyEntityDef[] {
  const v = opts.schema;
  if (typeof v !== 'string' || v === '')
    throw new EncodeError('schema', 'the replication family needs --schema FILE (a JSON file written by schemaToJson(defs))');
  let text = v;
  if (!v.trimStart().startsWith('{')) {
    try {
      // Node only (the page passes the JSON text): no static node:fs import below cli/ and web/
      const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
      const fs = proc?.getBuiltinModule?.('node:fs') as { readFileSync(p: string, enc: 'utf8'): string } | undefined;
      if (fs === undefined) throw new Error('no file system here: pass the schema JSON text itself');
      text = fs.readFileSync(v, 'utf8');
    } catch (e) {
      throw new EncodeError('schema', `cannot read the schema file ${v}: ${(e as Error).message}`, { cause: e });
    }
  }
  // (a schema that is not JSON, or not a schema, is bad input, as a file that cannot be read: the error behind it is
  // the cause, which keeps the CLI from making it a usage error; only a missing --schema is one)
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new EncodeError('schema', `the schema is not JSON: ${(e as Error).message.replace(/\r?\n/g, '\\n')}`, { cause: e });
  }
  try {
    return schemaFromJson(json);
  } catch (e) {
    if (!(e instanceof EncodeError)) throw e;
    throw new EncodeError(e.path === '' ? 'schema' : `schema.${e.path}`, e.reason, { cause: e });
  }
}

type Held = (id: number, base: number | null) => ReplicatedEntity | null;

/** The client's baseline lookup (what it holds for `id` at tick `base`), used before the packet is applied. */
function heldOf(client: ReplicationClient): Held {
  return (id, base) => client.heldAt(id, base);
}

/** A value as printed: numbers, strings, hex for bytes; `"NaN"`, `"Infinity"` and `"-0"` as strings (JSON has none of them). */
function valueJson(f: Field<unknown>, raw: unknown, fb: FloatBits): unknown {
  const v = fromRaw(f, raw, fb);
  if (Object.is(v, -0)) return '-0';
  if (Array.isArray(v)) return v.map((x) => (Object.is(x, -0) ? '-0' : toJsonValue(x)));
  return toJsonValue(v);
}

interface ParsedRecord {
  json: Record<string, unknown>;
  id: number;
  start: number;
  end: number;
}

/** Walk the records of a packet, recording spans (bits → bytes); same reading as ReplicationClient.parse. */
function parseRecords(
  inp: BitIn,
  count: number,
  base: number | null,
  defs: readonly AnyEntityDef[],
  held: Held,
  fb: FloatBits,
  sink: SpanSink,
): ParsedRecord[] {
  const typeBits = bitLength(defs.length - 1);
  const byteStart = (bit: number): number => inp.base + (bit >>> 3);
  const byteEnd = (bit: number): number => inp.base + ((bit + 7) >>> 3);
  const span = (name: string, bit0: number, kind: string): void => sink.add(name, byteStart(bit0), byteEnd(Math.max(inp.pos, bit0 + 1)), kind);
  const out: ParsedRecord[] = [];
  let id = 0;
  for (let i = 0; i < count; i++) {
    sink.push(`records[${i}]`);
    const r0 = inp.pos;
    const json: Record<string, unknown> = {};
    id += readGamma(inp, `records[${i}].id`);
    if (id > 0xffffffff) inp.fail(`records[${i}].id`, 'an id below 2^32', String(id));
    json.id = id;
    span('id', r0, 'gamma');
    const h = held(id, base);
    const o0 = inp.pos;
    let def: AnyEntityDef;
    let baseRaw: readonly unknown[];
    // op: 0 update, 10 creation, 11 despawn (bits in reading order)
    const op = inp.bit(`records[${i}].op`) === 0 ? 0 : 1 + inp.bit(`records[${i}].op`);
    if (op === 0) {
      if (h === null) inp.fail(`records[${i}].op`, `an entity held at the baseline for an update (id ${id})`, 'none');
      json.op = 'update';
      span('op', o0, 'bits');
      def = h.def;
      baseRaw = h.raw;
    } else if (op === 1) {
      // (over an entity held at the baseline: the id was despawned and spawned again since; the new one renews it)
      json.op = h === null ? 'create' : 'renew';
      span('op', o0, 'bits');
      const t0 = inp.pos;
      const type = inp.read(typeBits, `records[${i}].type`);
      const d = defs[type];
      if (d === undefined) inp.fail(`records[${i}].type`, `a type index below ${defs.length}`, String(type));
      json.type = d.name;
      sink.add('type', byteStart(t0), byteEnd(Math.max(inp.pos, t0 + 1)), 'bits');
      def = d;
      baseRaw = d.defaults;
    } else {
      if (h === null) inp.fail(`records[${i}].op`, `an entity held at the baseline for a despawn (id ${id})`, 'none');
      json.op = 'despawn';
      span('op', o0, 'bits');
      sink.pop();
      out.push({ json, id, start: byteStart(r0), end: byteEnd(inp.pos) });
      continue;
    }
    json.fields = parseBody(inp, def, baseRaw, fb, sink, span, `records[${i}]`);
    sink.pop();
    out.push({ json, id, start: byteStart(r0), end: byteEnd(inp.pos) });
  }
  inp.expectPadding('end');
  return out;
}

type SpanAt = (name: string, bit0: number, kind: string) => void;

function parseBody(inp: BitIn, def: AnyEntityDef, base: readonly unknown[], fb: FloatBits, sink: SpanSink, span: SpanAt, at: string): Record<string, unknown> {
  const list = def.list;
  const n = list.length;
  const fields: Record<string, unknown> = {};
  const m0 = inp.pos;
  const changed: number[] = [];
  for (let i = 0; i < n; i += 32) {
    const m = inp.read(Math.min(32, n - i), `${at}.mask`);
    for (let j = 0; j < 32 && i + j < n; j++) if ((m >>> j) & 1) changed.push(i + j);
  }
  span('fields', m0, 'mask');
  sink.push('fields');
  for (const k of changed) {
    const fi = list[k]!;
    const path = `${at}.fields.${fi.name}`;
    const f0 = inp.pos;
    if (fi.f.kind === 'bool') {
      fields[fi.name] = base[k] !== 1;
      span(fi.name, m0 + k, 'bool (mask bit)');
      continue;
    }
    if (fi.f.kind === 'array') {
      fields[fi.name] = parseArray(inp, fi.f, base[k] as unknown[], fb, sink, span, fi.name, path);
      continue;
    }
    const raw = readField(inp, fi.f, base[k], path);
    fields[fi.name] = valueJson(fi.f, raw, fb);
    span(fi.name, f0, fi.f.kind);
  }
  sink.pop();
  return fields;
}

function parseArray(inp: BitIn, f: Field<unknown>, bs: unknown[], fb: FloatBits, sink: SpanSink, span: SpanAt, name: string, path: string): unknown[] {
  const el = f.element!;
  const l0 = inp.pos;
  const n = inp.read(bitLength(f.maxLength!), path);
  if (n > f.maxLength!) inp.fail(path, `at most ${f.maxLength} elements`, String(n));
  span(name, l0, 'array');
  sink.push(name);
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const e0 = inp.pos;
    const bi = i < bs.length ? bs[i] : defaultRaw(el);
    const raw = inp.bit(`${path}[${i}]`) === 1 ? readField(inp, el, bi, `${path}[${i}]`) : bi;
    out.push(valueJson(el, raw, fb));
    span(`[${i}]`, e0, el.kind);
  }
  sink.pop();
  return out;
}

function tableOf(client: ReplicationClient, fb: FloatBits, last: ReceiveResult | undefined): EntityTable {
  const rows: EntityRow[] = [];
  const spawned = new Set(last?.spawned ?? []);
  for (const [id, e] of client.entities) {
    const fields: Record<string, unknown> = {};
    e.def.list.forEach((x, i) => (fields[x.name] = valueJson(x.f, e.raw[i], fb)));
    const isNew = spawned.has(id);
    const row: EntityRow = { id: String(id), type: e.type, fields, changed: isNew ? Object.keys(fields) : [...(last?.changed.get(id) ?? [])] };
    if (isNew) row.created = true;
    rows.push(row);
  }
  rows.sort((a, b) => Number(a.id) - Number(b.id));
  return { rows, removed: (last?.despawned ?? []).filter((id) => !client.entities.has(id)).map(String) };
}

/** A state packet walked before it is applied: its record and spans (offsets in the packet), and its records or the error. */
interface Walked {
  rec: Record<string, unknown>;
  head: SpanSink;
  inner: SpanSink;
  tick: number;
  base: number | null;
  parsed?: ParsedRecord[];
  err?: unknown;
}

/** Read a state packet's header and walk its records against the client's baselines (`walkRecords`: else the header only). */
function walkPacket(
  bytes: Uint8Array,
  defs: readonly AnyEntityDef[],
  held: Held,
  fb: FloatBits,
  walkRecords: (tick: number, base: number | null, session: number) => boolean,
): Walked {
  const r = new ByteReader(bytes);
  const rec: Record<string, unknown> = {};
  const head = new SpanSink();
  const field = (name: string, kind: string, read: () => number, show?: (n: number) => unknown): number => {
    const s = r.pos;
    const v = read();
    rec[name] = show ? show(v) : v;
    head.add(name, s, r.pos, kind);
    return v;
  };
  const magic = field('magic', 'u8', () => r.u8('magic'));
  if (magic !== STATE_MAGIC) throw new DecodeError(0, 'magic', `0x${STATE_MAGIC.toString(16)} (state packet)`, `0x${magic.toString(16)}`);
  field('schemaHash', 'u32le', () => r.u32le('schemaHash'), hex32);
  const session = field('session', 'u32le', () => r.u32le('session'), hex32);
  const tick = field('tick', 'varint', () => r.vu32('tick'));
  const ago = field('baseAgo', 'varint', () => r.vu32('baseAgo'));
  const base = ago === 0 || ago > tick ? null : tick - ago;
  rec.baseTick = base;
  const w: Walked = { rec, head, inner: new SpanSink(), tick, base };
  if (!walkRecords(tick, base, session)) return w;
  // records are read against the client's baselines before it applies the packet
  try {
    const d = r.pos;
    const deferred = r.vu32('deferred');
    w.inner.add('deferred', d, r.pos, 'varint');
    const c = r.pos;
    const count = r.vu32('count');
    w.inner.add('count', c, r.pos, 'varint');
    rec.deferred = deferred;
    rec.count = count;
    if (count > (r.end - r.pos) * 4) throw new DecodeError(r.pos, 'count', `at most ${(r.end - r.pos) * 4} records in ${r.end - r.pos} bytes`, String(count));
    w.parsed = parseRecords(new BitIn(bytes, r.pos, r.end), count, base, defs, held, fb, w.inner);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    w.err = e;
  }
  return w;
}

/** Copy `from`'s spans into `to` under its current path, `shift` bytes later. */
function copySpans(from: SpanSink, to: SpanSink, shift: number): void {
  for (const s of from.spans) to.add(s.path, s.start + shift, s.end + shift, s.kind);
}

function createDecoder(opts: OptionValues) {
  const defs = schemaOption(opts);
  const client = new ReplicationClient({ entities: defs });
  const held = heldOf(client);
  const fb = new FloatBits();
  let last: ReceiveResult | undefined;
  const packet = (bytes: Uint8Array, spans?: SpanSink): DecodedMessage => {
    const w = walkPacket(bytes, defs, held, fb, () => true);
    const res = client.receive(bytes); // throws the client's DecodeError on bad bytes, changing nothing
    last = res;
    const rec = w.rec;
    const out: DecodedMessage = { records: [rec] };
    if (spans) copySpans(w.head, spans, 0);
    if (res.ignored !== undefined) {
      rec.ignored = res.ignored;
      delete rec.deferred;
      delete rec.count;
      return out;
    }
    if (w.err !== undefined || w.parsed === undefined) throw w.err ?? new DecodeError(0, '', 'a state packet');
    rec.records = w.parsed.map((p) => p.json);
    if (spans) copySpans(w.inner, spans, 0);
    out.entities = w.parsed.map<EntityByteRange>((p) => ({ id: String(p.id), start: p.start, end: p.end }));
    return out;
  };
  // a bundle: each part walked against the client's state just before the client applies it (a part not newer than
  // the client is skipped by it, and still shown when its baseline is held)
  const bundle = (bytes: Uint8Array, spans?: SpanSink): DecodedMessage => {
    const frame = bundleParts(bytes);
    const walked: (Walked & { ignored?: string })[] = [];
    const res = client.receiveParts(
      (i) => frame[i],
      (part) => {
        let ignored: string | undefined;
        const w = walkPacket(part, defs, held, fb, (tick, base, session) => {
          // as the client decides (a part of another session than the one it follows is never applied in a bundle)
          if (client.session !== 0 && session !== client.session) {
            ignored = client.followedBefore(session) ? 'old' : 'missing-baseline';
            return false;
          }
          if (tick <= client.tick) ignored = 'old';
          else if (base !== null && !client.holds(base)) ignored = 'missing-baseline';
          return base === null || client.holds(base);
        });
        // (the client reads a part it applies as the walk did: an error there is the client's error)
        if (ignored === undefined && w.err !== undefined) throw w.err;
        walked.push(ignored === undefined ? w : { ...w, ignored });
      },
    );
    last = res;
    const parts: Record<string, unknown>[] = [];
    const entities: EntityByteRange[] = [];
    spans?.add('magic', 0, 1, 'u8');
    walked.forEach((w, i) => {
      const [at, part] = frame[i]!;
      // each part's frame: the bundle magic (the first frame's is the bundle's), its length, the part
      const start = i === 0 ? 1 : frame[i - 1]![0] + frame[i - 1]![1].length + 1;
      const rec: Record<string, unknown> = i === 0 ? { length: part.length, ...w.rec } : { bundleMagic: BUNDLE_MAGIC, length: part.length, ...w.rec };
      spans?.push(`parts[${i}]`);
      if (i > 0) spans?.add('bundleMagic', start - 1, start, 'u8');
      spans?.add('length', start, at, 'varint');
      if (spans) copySpans(w.head, spans, at);
      if (w.ignored !== undefined) rec.ignored = w.ignored;
      if (w.parsed !== undefined && w.err === undefined) {
        rec.records = w.parsed.map((p) => p.json);
        if (spans) copySpans(w.inner, spans, at);
        for (const p of w.parsed) entities.push({ id: String(p.id), start: p.start + at, end: p.end + at });
      } else {
        delete rec.deferred;
        delete rec.count;
      }
      spans?.pop();
      parts.push(rec);
    });
    return { records: [{ magic: BUNDLE_MAGIC, parts }], entities };
  };
  return {
    decode(bytes: Uint8Array, spans?: SpanSink): DecodedMessage {
      return bytes.length > 0 && bytes[0] === BUNDLE_MAGIC ? bundle(bytes, spans) : packet(bytes, spans);
    },
    state(): EntityTable {
      return tableOf(client, fb, last);
    },
  };
}

/** Re-encodes what the decoder prints: each record becomes the same packet (values → raw, coded against the same baselines). */
function createEncoder(opts: OptionValues) {
  const defs = schemaOption(opts);
  const client = new ReplicationClient({ entities: defs });
  const held = heldOf(client);
  const fb = new FloatBits();
  const typeIndex = new Map(defs.map((d, i) => [d.name, i]));
  const typeBits = bitLength(defs.length - 1);
  /** A state packet from its record (coded against the client's baselines, not applied). */
  const encodeState = (j: Record<string, unknown>): Uint8Array => {
    if (typeof j !== 'object' || j === null) throw new EncodeError('', 'expected a JSON object (a record printed by `decode replication`)');
    const num = (k: string): number => {
      const v = j[k];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff)
        throw new EncodeError(k, `expected an unsigned 32-bit integer, got ${JSON.stringify(v)}`);
      return v;
    };
    const tick = num('tick');
    if (tick === 0) throw new EncodeError('tick', 'expected a tick of at least 1, got 0');
    const ago = num('baseAgo');
    if (ago > tick) throw new EncodeError('baseAgo', `expected at most the tick (${tick}), got ${ago}`);
    // as the decoder prints them (hex32): the schema's own hash (the client takes no other); the session given, or the
    // one the stream follows (1 before any)
    const hash = hex32Field(j, 'schemaHash', client.hash);
    if (hash !== client.hash) throw new EncodeError('schemaHash', `expected this schema's hash ${hex32(client.hash)}, got ${j.schemaHash}`);
    const session = hex32Field(j, 'session', client.session === 0 ? 1 : client.session);
    if (session === 0) throw new EncodeError('session', 'expected a session other than 0x00000000');
    const w = new ByteWriter(64).u8(STATE_MAGIC).u32le(hash).u32le(session).vu32(tick).vu32(ago);
    if (j.ignored !== undefined && j.records === undefined)
      throw new EncodeError('ignored', 'a packet the decoder ignored cannot be re-encoded (its records were not decoded)');
    const recs = j.records;
    if (!Array.isArray(recs)) throw new EncodeError('records', 'expected an array');
    w.vu32(num('deferred')).vu32(recs.length);
    const base = ago === 0 ? null : tick - ago;
    const bits = new BitOut();
    let prev = 0;
    recs.forEach((r0, i) => {
      const at = `records[${i}]`;
      if (typeof r0 !== 'object' || r0 === null || Array.isArray(r0)) throw new EncodeError(at, `expected a record object, got ${JSON.stringify(r0)}`);
      const r = r0 as { id?: unknown; op?: unknown; type?: unknown; fields?: unknown };
      if (typeof r.id !== 'number' || !Number.isInteger(r.id) || r.id <= prev || r.id > 0xffffffff)
        throw new EncodeError(`${at}.id`, 'expected ids in increasing order, below 2^32');
      writeGamma(bits, r.id - prev);
      prev = r.id;
      const h = held(r.id, base);
      let def: AnyEntityDef;
      let baseRaw: readonly unknown[];
      if (r.op === 'update') {
        if (h === null) throw new EncodeError(`${at}.op`, `no entity ${r.id} at the baseline to update`);
        bits.write(0, 1);
        def = h.def;
        baseRaw = h.raw;
      } else if (r.op === 'create' || r.op === 'renew') {
        const ti = typeIndex.get(String(r.type));
        if (ti === undefined) throw new EncodeError(`${at}.type`, `unknown entity type ${JSON.stringify(r.type)}`);
        bits.write(1, 2);
        bits.write(ti, typeBits);
        def = defs[ti]!;
        baseRaw = def.defaults;
      } else if (r.op === 'despawn') {
        bits.write(3, 2);
        return;
      } else throw new EncodeError(`${at}.op`, 'expected update, create, renew or despawn');
      const raw = baseRaw.slice();
      const fields = r.fields ?? {};
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
        throw new EncodeError(`${at}.fields`, `expected an object of field values, got ${JSON.stringify(fields)}`);
      for (const [name, v] of Object.entries(fields)) {
        const fi = def.byName.get(name);
        if (fi === undefined) throw new EncodeError(`${at}.fields.${name}`, `no field ${name} in ${def.name}`);
        raw[fi.index] = toRaw(fi.f, fromJson(fi.f, v), `${at}.fields.${name}`, fb);
      }
      if (!writeBody(bits, def, baseRaw, raw)) for (let k = 0; k < def.list.length; k += 32) bits.write(0, Math.min(32, def.list.length - k)); // an empty mask
    });
    const body = bits.bytes();
    const head = w.finish();
    const packet = new Uint8Array(head.length + body.length);
    packet.set(head);
    packet.set(body, head.length);
    return packet;
  };
  return {
    encode(json: unknown): Uint8Array[] {
      const j = json as Record<string, unknown>;
      if (typeof j !== 'object' || j === null || !Array.isArray(j.parts)) {
        const packet = encodeState(j);
        client.receive(packet); // keeps the baselines the next packets are coded against
        return [packet];
      }
      // a bundle: each part coded against the client's state after the parts before it, as the client applies them
      const recs = j.parts as unknown[];
      const made: Uint8Array[] = [];
      let at = 0;
      // an EncodeError of a part: the client would wrap it as its own DecodeError (undoing the parts applied); kept and rethrown
      let failed: unknown;
      const nextPart = (i: number): [number, Uint8Array] | undefined => {
        if (i >= recs.length) return undefined;
        const r = recs[i] as Record<string, unknown>;
        if (r !== null && typeof r === 'object' && r.ignored === 'missing-baseline')
          throw new EncodeError(`parts[${i}].ignored`, 'a part whose baseline the decoder did not hold cannot be re-encoded (its records were not decoded)');
        let part: Uint8Array;
        try {
          part = encodeState(r);
        } catch (e) {
          throw atPath(e, `parts[${i}]`);
        }
        made.push(part);
        at += 1 + varintBytes(part.length);
        const p: [number, Uint8Array] = [at, part];
        at += part.length;
        return p;
      };
      try {
        client.receiveParts((i) => {
          try {
            return nextPart(i);
          } catch (e) {
            failed = e;
            throw e;
          }
        });
      } catch (e) {
        throw failed ?? e;
      }
      const w = new ByteWriter(at);
      for (const part of made) w.u8(BUNDLE_MAGIC).vu32(part.length).bytes(part);
      return [w.finish()];
    },
  };
}

/** JSON (as printed) → the value `toRaw` takes: hex strings for bytes, "NaN"/"Infinity" for floats. */
function fromJson(f: Field<unknown>, v: unknown): unknown {
  if (f.kind === 'array' && Array.isArray(v)) return v.map((x) => fromJson(f.element!, x));
  if (f.kind === 'bytes' && typeof v === 'string') {
    if (!/^(?:[0-9a-f]{2})*$/i.test(v)) throw new EncodeError('', `expected hex bytes, got ${JSON.stringify(v)}`);
    return Uint8Array.from(v.match(/../g) ?? [], (x) => Number.parseInt(x, 16));
  }
  if ((f.kind === 'f32' || f.kind === 'f64' || f.kind === 'quantized') && typeof v === 'string' && /^(?:NaN|-?Infinity|-0)$/.test(v)) return Number(v);
  return v;
}

export const replication: FamilyAdapter = {
  name: 'replication',
  aliases: ['tickwire'],
  summary: "tickwire/replication: the engine's own state packets (server → client), decoded with a schema from schemaToJson",
  options: {
    schema: { type: 'string', description: 'the schema: a JSON file written by schemaToJson(defs), or that JSON text itself' },
  },
  samples: [
    {
      id: 'demo',
      title: 'Demo world: ships, rocks and players; spawns, changes of every field type, despawns (30 packets)',
      path: 'samples/replication/demo.hex',
      format: 'hex-lines',
      options: { schema: JSON.stringify(DEMO_SCHEMA_JSON) },
    },
  ],
  createDecoder,
  createEncoder,
  summarize(m) {
    const r = m.records[0] as { tick?: number; baseTick?: number | null; ignored?: string } | undefined;
    const type = r?.ignored ? `state (ignored: ${r.ignored})` : r?.baseTick === null ? 'state/full' : 'state/delta';
    return r?.tick !== undefined ? { type, tick: r.tick, direction: 'server→client' } : { type };
  },
};

/** A u32 field of a record as decode prints it (`0x` and 8 hex digits), or `dflt` when absent. */
function hex32Field(j: Record<string, unknown>, k: string, dflt: number): number {
  const h = j[k];
  if (h === undefined) return dflt;
  if (typeof h !== 'string' || !/^0x[0-9a-f]{8}$/i.test(h))
    throw new EncodeError(k, `expected 0x and 8 hex digits (as decode prints it), got ${JSON.stringify(h)}`);
  return Number.parseInt(h.slice(2), 16);
}
