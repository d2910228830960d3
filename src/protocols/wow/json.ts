/**
 * The JSON form of WoW packets and bodies, as the CLI prints it and reads it
 * back. It follows the fixture expectation format (test/fixtures/wow/README.md):
 * flag and mask words and raw slots as `"0x"` hex strings, guids as `"0x"` + 16
 * hex digits, counts and times as numbers, floats as the shortest decimal that
 * gives the same float32.
 *
 * Floats a JSON number cannot carry are strings: `"NaN"`, `"Infinity"`,
 * `"-Infinity"`, `"-0"`, and `"f32:0x7f800001"` for a NaN with other bits.
 *
 * Reading back, derived keys (`length`, `blockCount`, names, `float`, `size` ...)
 * are ignored; each value slot's `raw` is authoritative.
 */
import { EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import { fromHex, toHex } from '../../core/hex.js';
import { bitsToF32, f32ToBits, shortestF32 } from '../../core/floats.js';
import { fieldAt, guidHex, objectType } from './fields.js';
import { flagNames, MOVE_FLAG_NAMES, SPLINE_FLAG_NAMES, UPDATE_FLAG_NAMES } from './tables/flags.js';
import { adler32, nanNeedsBits, popcount32 } from './codec.js';
import {
  OPCODE_NAMES,
  SMSG_COMPRESSED_UPDATE_OBJECT,
  SMSG_DESTROY_OBJECT,
  SMSG_UPDATE_OBJECT,
  UPDATE_TYPE_NAMES,
  type Movement,
  type MovementInfo,
  type ServerPacket,
  type Spline,
  type UpdateBlock,
  type UpdateBody,
  type UpdateValues,
  type Vec3,
} from './types.js';

type Obj = Record<string, unknown>;

export interface JsonOptions {
  /** Object type of a guid (from the object store), to name the slots of VALUES blocks. */
  typeOf?: (guid: bigint) => number | undefined;
}

// ---------------------------------------------------------------------------
// scalars

const hex = (v: number, digits: number): string => `0x${(v >>> 0).toString(16).padStart(digits, '0')}`;

/** Shortest decimal that reads back as the same float32 (a number), or a string for the special cases. */
export function floatToJson(v: number, bits?: number): number | string {
  if (v !== v) {
    const b = bits ?? f32ToBits(v);
    return b >>> 0 === 0x7fc00000 ? 'NaN' : `f32:${hex(b, 8)}`;
  }
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : 0;
  return shortestF32(v);
}

/** A float (number or special string) and, when it needs them, its exact bits. */
export function floatFromJson(v: unknown, path: string): { value: number; bits?: number } {
  if (typeof v === 'number') return { value: Math.fround(v) };
  if (typeof v === 'string') {
    if (v === 'NaN') return { value: NaN };
    if (v === 'Infinity') return { value: Infinity };
    if (v === '-Infinity') return { value: -Infinity };
    if (v === '-0') return { value: -0 };
    const m = /^f32:0x([0-9a-fA-F]{1,8})$/.exec(v);
    if (m) {
      const bits = parseInt(m[1]!, 16) >>> 0;
      const value = bitsToF32(bits);
      return nanNeedsBits(bits) ? { value, bits } : { value };
    }
    // a decimal in a string ("1.5", "-2e3"); not Number's other forms ("0x1f", "0b1", "0o7"), which would read a hex
    // word meant as bits as a huge number
    if (/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(v) && Number.isFinite(Number(v))) return { value: Math.fround(Number(v)) };
  }
  throw new EncodeError(path, `expected a float (number, "NaN", "Infinity", "-0" or "f32:0x…"), got ${excerpt(v)}`);
}

/** An unsigned integer from a number, a decimal string or a `0x` hex string. */
export function uintFromJson(v: unknown, max: number, path: string): number {
  let n: number | undefined;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(v)) n = Number(v);
  if (n === undefined || !Number.isInteger(n) || n < 0 || n > max) throw new EncodeError(path, `expected an integer in [0, ${max}], got ${excerpt(v)}`);
  return n;
}

/** A 64-bit guid from `"0x…"` hex, a decimal string or a safe integer. */
export function guidFromJson(v: unknown, path: string): bigint {
  let g: bigint | undefined;
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]{1,16}|\d{1,20})$/.test(v)) g = BigInt(v);
  else if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) g = BigInt(v);
  else if (typeof v === 'bigint') g = v;
  if (g === undefined || g < 0n || g > 0xffffffffffffffffn) throw new EncodeError(path, `expected a guid ("0x" + hex), got ${excerpt(v)}`);
  return g;
}

function obj(v: unknown, path: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new EncodeError(path, `expected an object, got ${excerpt(v)}`);
  return v as Obj;
}

function arr(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw new EncodeError(path, `expected an array, got ${excerpt(v)}`);
  return v;
}

// ---------------------------------------------------------------------------
// to JSON

function movementToJson(m: Movement): Obj {
  const nb = m.nanBits;
  const f = (v: number, path: string): number | string => floatToJson(v, nb?.[path]);
  const v3 = (v: Vec3, path: string) => [f(v[0], `${path}[0]`), f(v[1], `${path}[1]`), f(v[2], `${path}[2]`)];
  const out: Obj = { updateFlags: hex(m.updateFlags, 2), updateFlagNames: flagNames(m.updateFlags, UPDATE_FLAG_NAMES) };
  const mi = m.movementInfo;
  if (mi !== undefined) {
    const j: Obj = {
      flags: hex(mi.flags, 8),
      flagNames: flagNames(mi.flags, MOVE_FLAG_NAMES),
      time: mi.time,
      x: f(mi.x, 'movementInfo.x'),
      y: f(mi.y, 'movementInfo.y'),
      z: f(mi.z, 'movementInfo.z'),
      o: f(mi.o, 'movementInfo.o'),
    };
    if (mi.transport !== undefined) {
      const t = mi.transport;
      j.transport = {
        guid: guidHex(t.guid),
        x: f(t.x, 'movementInfo.transport.x'),
        y: f(t.y, 'movementInfo.transport.y'),
        z: f(t.z, 'movementInfo.transport.z'),
        o: f(t.o, 'movementInfo.transport.o'),
      };
    }
    if (mi.pitch !== undefined) j.pitch = f(mi.pitch, 'movementInfo.pitch');
    j.fallTime = mi.fallTime;
    if (mi.jump !== undefined) {
      const k = mi.jump;
      j.jump = {
        zSpeed: f(k.zSpeed, 'movementInfo.jump.zSpeed'),
        cosAngle: f(k.cosAngle, 'movementInfo.jump.cosAngle'),
        sinAngle: f(k.sinAngle, 'movementInfo.jump.sinAngle'),
        xySpeed: f(k.xySpeed, 'movementInfo.jump.xySpeed'),
      };
    }
    if (mi.splineElevation !== undefined) j.splineElevation = f(mi.splineElevation, 'movementInfo.splineElevation');
    out.movementInfo = j;
  }
  const s = m.speeds;
  if (s !== undefined) {
    out.speeds = {
      walk: f(s.walk, 'speeds.walk'),
      run: f(s.run, 'speeds.run'),
      runBack: f(s.runBack, 'speeds.runBack'),
      swim: f(s.swim, 'speeds.swim'),
      swimBack: f(s.swimBack, 'speeds.swimBack'),
      turnRate: f(s.turnRate, 'speeds.turnRate'),
    };
  }
  const sp = m.spline;
  if (sp !== undefined) {
    const j: Obj = { flags: hex(sp.flags, 8), flagNames: flagNames(sp.flags, SPLINE_FLAG_NAMES) };
    if (sp.facingPoint !== undefined) j.facingPoint = v3(sp.facingPoint, 'spline.facingPoint');
    if (sp.facingTarget !== undefined) j.facingTarget = guidHex(sp.facingTarget);
    if (sp.facingAngle !== undefined) j.facingAngle = f(sp.facingAngle, 'spline.facingAngle');
    j.timePassed = sp.timePassed;
    j.duration = sp.duration;
    j.id = sp.id;
    const bits = new Uint32Array(sp.nodes.buffer, sp.nodes.byteOffset, sp.nodes.length);
    const nodes: unknown[] = [];
    for (let i = 0; i + 2 < sp.nodes.length; i += 3) {
      nodes.push([floatToJson(sp.nodes[i]!, bits[i]), floatToJson(sp.nodes[i + 1]!, bits[i + 1]), floatToJson(sp.nodes[i + 2]!, bits[i + 2])]);
    }
    j.nodes = nodes;
    j.finalDestination = v3(sp.finalDestination, 'spline.finalDestination');
    out.spline = j;
  }
  const p = m.position;
  if (p !== undefined) out.position = { x: f(p.x, 'position.x'), y: f(p.y, 'position.y'), z: f(p.z, 'position.z'), o: f(p.o, 'position.o') };
  if (m.highGuid !== undefined) out.highGuid = m.highGuid;
  if (m.all !== undefined) out.all = m.all;
  if (m.victim !== undefined) out.victim = guidHex(m.victim);
  if (m.transportTime !== undefined) out.transportTime = m.transportTime;
  return out;
}

/** One JSON entry per present slot, typed through the field table when the object type is known. */
export function valuesToJson(v: UpdateValues, typeId: number | undefined): Obj {
  const fields: Obj[] = [];
  const present = new Map<number, number>();
  let k = 0;
  for (let i = 0; i < v.mask.length; i++) {
    let w = v.mask[i]!;
    while (w !== 0) {
      const bit = 31 - Math.clz32(w & -w);
      w &= w - 1;
      present.set(32 * i + bit, v.values[k++]!);
    }
  }
  for (const [slot, raw] of present) {
    const f = typeId === undefined ? undefined : fieldAt(typeId, slot);
    const e: Obj = { index: slot, field: f?.name ?? null, offset: f === undefined ? 0 : slot - f.index, type: f?.type ?? null, raw: hex(raw, 8) };
    if (f !== undefined) {
      switch (f.type) {
        case 'float':
          e.float = floatToJson(bitsToF32(raw), raw);
          break;
        case 'bytes':
          e.bytes = [raw & 0xff, (raw >>> 8) & 0xff, (raw >>> 16) & 0xff, raw >>> 24];
          break;
        case 'two_shorts':
          e.shorts = [raw & 0xffff, raw >>> 16];
          break;
        case 'guid':
          if ((slot - f.index) % 2 === 0 && present.has(slot + 1)) e.guid = guidHex((BigInt(present.get(slot + 1)!) << 32n) | BigInt(raw));
          break;
        default:
          e.int = raw;
      }
    }
    fields.push(e);
  }
  return { blockCount: v.mask.length, mask: Array.from(v.mask, (w) => hex(w, 8)), fields };
}

export function blockToJson(b: UpdateBlock, opts?: JsonOptions): Obj {
  const out: Obj = { updateType: b.updateType, updateTypeName: UPDATE_TYPE_NAMES[b.updateType] };
  switch (b.updateType) {
    case 0:
      out.guid = guidHex(b.guid);
      out.values = valuesToJson(b.values, opts?.typeOf?.(b.guid));
      break;
    case 1:
      out.guid = guidHex(b.guid);
      out.movement = movementToJson(b.movement);
      break;
    case 2:
    case 3:
      out.guid = guidHex(b.guid);
      out.objectTypeId = b.objectTypeId;
      out.objectTypeName = objectType(b.objectTypeId)?.name ?? null;
      out.movement = movementToJson(b.movement);
      out.values = valuesToJson(b.values, b.objectTypeId);
      break;
    default:
      out.guids = b.guids.map(guidHex);
  }
  return out;
}

/**
 * JSON form of a body. Blocks are converted in order and `typeOf` is asked for
 * VALUES blocks; creates earlier in the same body name later VALUES blocks too.
 */
export function bodyToJson(body: UpdateBody, opts?: JsonOptions & { length?: number }): Obj {
  const local = new Map<bigint, number>();
  const typeOf = (g: bigint) => local.get(g) ?? opts?.typeOf?.(g);
  const blocks: Obj[] = [];
  for (const b of body.blocks) {
    if (b.updateType === 2 || b.updateType === 3) local.set(b.guid, b.objectTypeId);
    blocks.push(blockToJson(b, { typeOf }));
  }
  const out: Obj = {};
  if (opts?.length !== undefined) out.length = opts.length;
  out.blockCount = body.blocks.length;
  out.hasTransport = body.hasTransport;
  out.blocks = blocks;
  if (body.nonCanonical) out.nonCanonical = true;
  return out;
}

/** JSON form of a whole packet (`frame`, `compression`, `body` or `guid`). */
export function packetToJson(p: ServerPacket, info: { size: number; bodyLength?: number }, opts?: JsonOptions): Obj {
  const frame = { size: info.size, opcode: hex(p.opcode, 4), opcodeName: OPCODE_NAMES[p.opcode], payloadLength: info.size - 2 };
  if (p.opcode === SMSG_DESTROY_OBJECT) return { frame, guid: guidHex(p.guid) };
  const bodyOpts: JsonOptions & { length?: number } = {
    length: info.bodyLength ?? (p.opcode === SMSG_COMPRESSED_UPDATE_OBJECT ? p.uncompressedSize : info.size - 2),
  };
  if (opts?.typeOf !== undefined) bodyOpts.typeOf = opts.typeOf;
  if (p.opcode === SMSG_UPDATE_OBJECT) return { frame, compression: null, body: bodyToJson(p.body, bodyOpts) };
  const z = p.zlib;
  const compression: Obj = { uncompressedSize: p.uncompressedSize };
  if (z !== undefined) {
    compression.zlibLength = z.length;
    compression.zlibHeader = toHex(z.subarray(0, 2));
    const n = z.length;
    if (n >= 4) compression.adler32 = hex(((z[n - 4]! << 24) | (z[n - 3]! << 16) | (z[n - 2]! << 8) | z[n - 1]!) >>> 0, 8);
    compression.zlib = toHex(z);
  }
  return { frame, compression, body: bodyToJson(p.body, bodyOpts) };
}

// ---------------------------------------------------------------------------
// from JSON

function movementFromJson(v: unknown, path: string): Movement {
  const o = obj(v, path);
  const m: Movement = { updateFlags: uintFromJson(o.updateFlags, 0xff, `${path}.updateFlags`) };
  const fl = (x: unknown, rel: string): number => {
    const r = floatFromJson(x, `${path}.${rel}`);
    if (r.bits !== undefined) (m.nanBits ??= {})[rel] = r.bits;
    return r.value;
  };
  const v3 = (x: unknown, rel: string): Vec3 => {
    const a = arr(x, `${path}.${rel}`);
    if (a.length !== 3) throw new EncodeError(`${path}.${rel}`, 'expected [x, y, z]');
    return [fl(a[0], `${rel}[0]`), fl(a[1], `${rel}[1]`), fl(a[2], `${rel}[2]`)];
  };
  if (o.movementInfo !== undefined) {
    const j = obj(o.movementInfo, `${path}.movementInfo`);
    const mi: MovementInfo = {
      flags: uintFromJson(j.flags, 0xffffffff, `${path}.movementInfo.flags`),
      time: uintFromJson(j.time, 0xffffffff, `${path}.movementInfo.time`),
      x: fl(j.x, 'movementInfo.x'),
      y: fl(j.y, 'movementInfo.y'),
      z: fl(j.z, 'movementInfo.z'),
      o: fl(j.o, 'movementInfo.o'),
      fallTime: uintFromJson(j.fallTime, 0xffffffff, `${path}.movementInfo.fallTime`),
    };
    if (j.transport !== undefined) {
      const t = obj(j.transport, `${path}.movementInfo.transport`);
      mi.transport = {
        guid: guidFromJson(t.guid, `${path}.movementInfo.transport.guid`),
        x: fl(t.x, 'movementInfo.transport.x'),
        y: fl(t.y, 'movementInfo.transport.y'),
        z: fl(t.z, 'movementInfo.transport.z'),
        o: fl(t.o, 'movementInfo.transport.o'),
      };
    }
    if (j.pitch !== undefined) mi.pitch = fl(j.pitch, 'movementInfo.pitch');
    if (j.jump !== undefined) {
      const k = obj(j.jump, `${path}.movementInfo.jump`);
      mi.jump = {
        zSpeed: fl(k.zSpeed, 'movementInfo.jump.zSpeed'),
        cosAngle: fl(k.cosAngle, 'movementInfo.jump.cosAngle'),
        sinAngle: fl(k.sinAngle, 'movementInfo.jump.sinAngle'),
        xySpeed: fl(k.xySpeed, 'movementInfo.jump.xySpeed'),
      };
    }
    if (j.splineElevation !== undefined) mi.splineElevation = fl(j.splineElevation, 'movementInfo.splineElevation');
    m.movementInfo = mi;
  }
  if (o.speeds !== undefined) {
    const s = obj(o.speeds, `${path}.speeds`);
    m.speeds = {
      walk: fl(s.walk, 'speeds.walk'),
      run: fl(s.run, 'speeds.run'),
      runBack: fl(s.runBack, 'speeds.runBack'),
      swim: fl(s.swim, 'speeds.swim'),
      swimBack: fl(s.swimBack, 'speeds.swimBack'),
      turnRate: fl(s.turnRate, 'speeds.turnRate'),
    };
  }
  if (o.spline !== undefined) {
    const s = obj(o.spline, `${path}.spline`);
    const nodesJ = arr(s.nodes, `${path}.spline.nodes`);
    const nodes = new Float32Array(nodesJ.length * 3);
    const bits = new Uint32Array(nodes.buffer);
    nodesJ.forEach((n, i) => {
      const a = arr(n, `${path}.spline.nodes[${i}]`);
      if (a.length !== 3) throw new EncodeError(`${path}.spline.nodes[${i}]`, 'expected [x, y, z]');
      for (let k = 0; k < 3; k++) {
        const r = floatFromJson(a[k], `${path}.spline.nodes[${i}][${k}]`);
        bits[3 * i + k] = r.bits ?? f32ToBits(r.value);
      }
    });
    const sp: Spline = {
      flags: uintFromJson(s.flags, 0xffffffff, `${path}.spline.flags`),
      timePassed: uintFromJson(s.timePassed, 0xffffffff, `${path}.spline.timePassed`),
      duration: uintFromJson(s.duration, 0xffffffff, `${path}.spline.duration`),
      id: uintFromJson(s.id, 0xffffffff, `${path}.spline.id`),
      nodes,
      finalDestination: v3(s.finalDestination, 'spline.finalDestination'),
    };
    if (s.facingPoint !== undefined) sp.facingPoint = v3(s.facingPoint, 'spline.facingPoint');
    if (s.facingTarget !== undefined) sp.facingTarget = guidFromJson(s.facingTarget, `${path}.spline.facingTarget`);
    if (s.facingAngle !== undefined) sp.facingAngle = fl(s.facingAngle, 'spline.facingAngle');
    m.spline = sp;
  }
  if (o.position !== undefined) {
    const p = obj(o.position, `${path}.position`);
    m.position = { x: fl(p.x, 'position.x'), y: fl(p.y, 'position.y'), z: fl(p.z, 'position.z'), o: fl(p.o, 'position.o') };
  }
  if (o.highGuid !== undefined) m.highGuid = uintFromJson(o.highGuid, 0xffffffff, `${path}.highGuid`);
  if (o.all !== undefined) m.all = uintFromJson(o.all, 0xffffffff, `${path}.all`);
  if (o.victim !== undefined) m.victim = guidFromJson(o.victim, `${path}.victim`);
  if (o.transportTime !== undefined) m.transportTime = uintFromJson(o.transportTime, 0xffffffff, `${path}.transportTime`);
  return m;
}

function valuesFromJson(v: unknown, path: string): UpdateValues {
  const o = obj(v, path);
  const fields = arr(o.fields ?? [], `${path}.fields`);
  let maxSlot = -1;
  const slots: Array<[number, number]> = fields.map((f, i) => {
    const e = obj(f, `${path}.fields[${i}]`);
    const slot = uintFromJson(e.index, 255 * 32 - 1, `${path}.fields[${i}].index`);
    if (slot <= maxSlot) throw new EncodeError(`${path}.fields[${i}].index`, 'slots must be in rising order, each once');
    maxSlot = slot;
    return [slot, uintFromJson(e.raw, 0xffffffff, `${path}.fields[${i}].raw`)];
  });
  const need = Math.ceil((maxSlot + 1) / 32);
  const count = o.blockCount === undefined ? need : uintFromJson(o.blockCount, 255, `${path}.blockCount`);
  if (count < need) throw new EncodeError(`${path}.blockCount`, `${count} mask blocks cannot hold slot ${maxSlot}`);
  const mask = new Uint32Array(count);
  const values = new Uint32Array(slots.length);
  slots.forEach(([slot, raw], i) => {
    mask[slot >> 5] = (mask[slot >> 5]! | (1 << (slot & 31))) >>> 0;
    values[i] = raw;
  });
  if (o.mask !== undefined) {
    const given = arr(o.mask, `${path}.mask`);
    if (given.length !== count) throw new EncodeError(`${path}.mask`, `${given.length} words but blockCount ${count}`);
    given.forEach((w, i) => {
      if (uintFromJson(w, 0xffffffff, `${path}.mask[${i}]`) !== mask[i])
        throw new EncodeError(`${path}.mask[${i}]`, 'does not match the slots listed in fields');
    });
  }
  let pop = 0;
  for (const w of mask) pop += popcount32(w);
  if (pop !== values.length) throw new EncodeError(`${path}.fields`, 'internal: mask and values disagree');
  return { mask, values };
}

export function blockFromJson(v: unknown, path = 'block'): UpdateBlock {
  const o = obj(v, path);
  const t = uintFromJson(o.updateType, 5, `${path}.updateType`);
  switch (t) {
    case 0:
      return { updateType: 0, guid: guidFromJson(o.guid, `${path}.guid`), values: valuesFromJson(o.values, `${path}.values`) };
    case 1:
      return { updateType: 1, guid: guidFromJson(o.guid, `${path}.guid`), movement: movementFromJson(o.movement, `${path}.movement`) };
    case 2:
    case 3:
      return {
        updateType: t,
        guid: guidFromJson(o.guid, `${path}.guid`),
        objectTypeId: uintFromJson(o.objectTypeId, 0xff, `${path}.objectTypeId`),
        movement: movementFromJson(o.movement, `${path}.movement`),
        values: valuesFromJson(o.values, `${path}.values`),
      };
    default:
      return { updateType: t as 4 | 5, guids: arr(o.guids, `${path}.guids`).map((g, i) => guidFromJson(g, `${path}.guids[${i}]`)) };
  }
}

export function bodyFromJson(v: unknown, path = 'body'): UpdateBody {
  const o = obj(v, path);
  const blocks = arr(o.blocks, `${path}.blocks`).map((b, i) => blockFromJson(b, `${path}.blocks[${i}]`));
  if (o.blockCount !== undefined && uintFromJson(o.blockCount, 0xffffffff, `${path}.blockCount`) !== blocks.length) {
    throw new EncodeError(`${path}.blockCount`, `${excerpt(o.blockCount)} but ${blocks.length} blocks are listed`);
  }
  return { hasTransport: uintFromJson(o.hasTransport ?? 0, 0xff, `${path}.hasTransport`), blocks };
}

export function packetFromJson(v: unknown): ServerPacket {
  const o = obj(v, '');
  const fr = o.frame === undefined ? {} : obj(o.frame, 'frame');
  const opcode =
    fr.opcode === undefined
      ? o.compression
        ? SMSG_COMPRESSED_UPDATE_OBJECT
        : o.guid !== undefined && o.body === undefined
          ? SMSG_DESTROY_OBJECT
          : SMSG_UPDATE_OBJECT
      : uintFromJson(fr.opcode, 0xffff, 'frame.opcode');
  if (opcode === SMSG_DESTROY_OBJECT) return { opcode, guid: guidFromJson(o.guid, 'guid') };
  const body = bodyFromJson(o.body, 'body');
  if (opcode === SMSG_UPDATE_OBJECT) return { opcode, body };
  if (opcode === SMSG_COMPRESSED_UPDATE_OBJECT) {
    const c = o.compression === undefined || o.compression === null ? {} : obj(o.compression, 'compression');
    const p: ServerPacket = { opcode, body, uncompressedSize: 0 };
    if (typeof c.zlib === 'string') {
      try {
        p.zlib = fromHex(c.zlib);
      } catch {
        throw new EncodeError('compression.zlib', 'expected hex');
      }
    }
    return p;
  }
  throw new EncodeError('frame.opcode', `expected 0x00a9, 0x01f6 or 0x00aa, got ${excerpt(fr.opcode)}`);
}

export { adler32 };
