/**
 * Writers of clientbound 0x00 update packets (reference §5): the inverse of
 * `update-read.ts`. They refuse with an `EncodeError` (path and reason) anything the
 * reader would not read back: values out of range, shapes the table does not have,
 * strings and entry counts past the decoder's limits.
 */
import { ByteWriter, EncodeError, atPath, excerpt } from '../../core/index.js';
import * as prim from './primitives.js';
import * as schema from './tables/schema.js';
import type { FieldTable } from './tables/schema.js';
import { FIELDS_6F59094D } from './tables/index.js';
import { DIEP_DEFAULT_LIMITS, resolveDiepLimits, type DiepLimits } from './limits.js';
import type { ElementChanges, EntityRef, F32Bits, Scalar, UpdatePacket, Upcreate } from './types.js';

// Module-level bindings of the hot imports (tsx/esbuild turn imported bindings into getters).
const writeEntid = prim.writeEntid;
const writeF32 = prim.writeF32;
const writeJump = prim.writeJump;
const writeString = prim.writeString;
const writeVi = prim.writeVi;
const writeVi64 = prim.writeVi64;
const writeVu = prim.writeVu;
const ENC_ENTID = schema.ENC_ENTID;
const ENC_F32 = schema.ENC_F32;
const ENC_STRING = schema.ENC_STRING;
const ENC_VI = schema.ENC_VI;
const ENC_VI64 = schema.ENC_VI64;
const ENC_VU = schema.ENC_VU;

export interface DiepEncodeOptions {
  table?: FieldTable;
  /** The decoder's limits the output must stay within (`maxStringLength`, `diepMaxEntities`, `maxLz4Output`). */
  limits?: Partial<DiepLimits>;
}

/** Write one value of encoding code `enc`. */
export function writeValue(w: ByteWriter, enc: number, v: Scalar, maxString = DIEP_DEFAULT_LIMITS.maxStringLength): void {
  switch (enc) {
    case ENC_VU:
      writeVu(w, v as number);
      return;
    case ENC_VI:
      writeVi(w, v as number);
      return;
    case ENC_F32:
      writeF32(w, v as number | F32Bits);
      return;
    case ENC_VI64:
      writeVi64(w, v as number);
      return;
    case ENC_STRING:
      writeString(w, v as string, maxString);
      return;
    case ENC_ENTID:
      writeEntid(w, v as EntityRef | null);
      return;
    default:
      throw new EncodeError('', `unknown encoding code ${enc}`);
  }
}

/** Encode a 0x00 update packet. */
export function encodeUpdate(p: UpdatePacket, opts?: DiepEncodeOptions): Uint8Array {
  const w = new ByteWriter(256);
  writeUpdate(w, p, opts?.table ?? FIELDS_6F59094D, resolveDiepLimits(opts?.limits));
  return w.finish();
}

/** Write a 0x00 update packet into `w`. */
export function writeUpdate(w: ByteWriter, p: UpdatePacket, table: FieldTable, limits: Readonly<DiepLimits> = DIEP_DEFAULT_LIMITS): void {
  if (!Array.isArray(p.deletions)) throw new EncodeError('deletions', `expected an array, got ${excerpt(p.deletions)}`);
  if (!Array.isArray(p.upcreates)) throw new EncodeError('upcreates', `expected an array, got ${excerpt(p.upcreates)}`);
  const entries = p.deletions.length + p.upcreates.length;
  if (entries > limits.diepMaxEntities) {
    throw new EncodeError('', `${p.deletions.length} deletions and ${p.upcreates.length} upcreates past diepMaxEntities ${limits.diepMaxEntities}`);
  }
  w.u8(0x00);
  try {
    writeVu(w, p.tick);
  } catch (e) {
    throw atPath(e, 'tick');
  }
  writeVu(w, p.deletions.length);
  for (let i = 0; i < p.deletions.length; i++) {
    const d = p.deletions[i]!;
    try {
      if (d === null || d.hash === 0) throw new EncodeError('', 'a deletion cannot be a null reference');
      writeEntid(w, d);
    } catch (e) {
      throw atPath(e, `deletions[${i}]`);
    }
  }
  writeVu(w, p.upcreates.length);
  for (let i = 0; i < p.upcreates.length; i++) {
    const u = p.upcreates[i]!;
    try {
      writeUpcreate(w, u, table, limits.maxStringLength);
    } catch (e) {
      throw atPath(e, `upcreates[${i}]`);
    }
  }
}

/** Write one upcreate (entid, mode, body). */
export function writeUpcreate(w: ByteWriter, u: Upcreate, table: FieldTable, maxString = DIEP_DEFAULT_LIMITS.maxStringLength): void {
  if (u === null || typeof u !== 'object') throw new EncodeError('', `expected an upcreate, got ${excerpt(u)}`);
  if (u.hash === 0) throw new EncodeError('hash', 'an upcreate cannot name a null entity (hash 0)');
  writeEntid(w, { hash: u.hash, id: u.id });
  if (u.kind === 'creation') {
    w.u8(1);
    writeCreationBody(w, u.groups, u.values, table, maxString);
  } else if (u.kind === 'update') {
    w.u8(0);
    w.u8(1);
    writeChangeBody(w, u.fields, u.values, table, maxString);
  } else {
    throw new EncodeError('kind', `must be 'creation' or 'update'`);
  }
}

/** Group table then every field of the present groups in global field order. */
export function writeCreationBody(
  w: ByteWriter,
  groups: readonly number[],
  values: readonly (Scalar | Scalar[] | undefined)[],
  table: FieldTable,
  maxString = DIEP_DEFAULT_LIMITS.maxStringLength,
): void {
  if (!Array.isArray(groups)) throw new EncodeError('groups', `expected an array, got ${excerpt(groups)}`);
  if (!Array.isArray(values)) throw new EncodeError('values', `expected an array, got ${excerpt(values)}`);
  const present = new Uint8Array(table.groupCount);
  let prev = -1;
  for (const g of groups) {
    if (!Number.isInteger(g) || g < 0 || g >= table.groupCount) throw new EncodeError('groups', `unknown group ${g}`);
    writeJump(w, g, prev);
    prev = g;
    present[g] = 1;
  }
  w.u8(1);
  for (let f = 0; f < table.fieldCount; f++) {
    if (present[table.fieldGroup[f]!] === 0) continue;
    const def = table.fields[f]!;
    const v = values[f];
    try {
      if (v === undefined) throw new EncodeError('', 'missing value (a creation carries every field of its groups)');
      if (def.length === 0) {
        writeValue(w, def.enc, v as Scalar, maxString);
      } else {
        if (!Array.isArray(v) || v.length !== def.length) throw new EncodeError('', `must be an array of ${def.length} elements`);
        for (let e = 0; e < def.length; e++) {
          try {
            writeValue(w, def.enc, v[e] as Scalar, maxString);
          } catch (err) {
            throw atPath(err, `[${e}]`);
          }
        }
      }
    } catch (e) {
      throw atPath(e, def.key);
    }
  }
}

/** Field table of changed fields; array fields carry an element table. */
export function writeChangeBody(
  w: ByteWriter,
  fields: readonly number[],
  values: readonly (Scalar | ElementChanges)[],
  table: FieldTable,
  maxString = DIEP_DEFAULT_LIMITS.maxStringLength,
): void {
  if (!Array.isArray(fields) || !Array.isArray(values) || fields.length !== values.length)
    throw new EncodeError('fields', 'an update needs parallel arrays fields and values');
  let prev = -1;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (!Number.isInteger(f) || f < 0 || f >= table.fieldCount) throw new EncodeError('fields', `unknown field index ${f}`);
    const def = table.fields[f]!;
    try {
      writeJump(w, f, prev);
      prev = f;
      const v = values[i];
      if (def.length === 0) {
        writeValue(w, def.enc, v as Scalar, maxString);
      } else {
        const ec = v as ElementChanges;
        if (ec === null || typeof ec !== 'object' || !Array.isArray(ec.indices) || !Array.isArray(ec.values) || ec.indices.length !== ec.values.length) {
          throw new EncodeError('', 'an array field needs {indices, values}');
        }
        let pe = -1;
        for (let k = 0; k < ec.indices.length; k++) {
          const e = ec.indices[k]!;
          if (e >= def.length) throw new EncodeError('', `element index ${e} beyond length ${def.length}`);
          writeJump(w, e, pe);
          pe = e;
          writeValue(w, def.updateEnc, ec.values[k] as Scalar, maxString);
        }
        w.u8(1);
      }
    } catch (e) {
      throw atPath(e, def.key);
    }
  }
  w.u8(1);
}
