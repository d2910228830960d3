/**
 * Encoding NetworkUpdates and 0x15/0x16 bodies (§5, §9): the RawUpdate form and the
 * DeltaUpdate writer shared by the body encoder and the producer.
 */
import { DecodeError, EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import { ControllerTable, type ControllerTracker } from './controllers.js';
import { checkUpdate } from './layouts-check.js';
import { PICK_B, PICK_CT_UNKNOWN, PICK_VARIANT_UNKNOWN, pickVariant } from './layouts.js';
import { writeData } from './layouts-write.js';
import { SM_DEFAULT_LIMITS } from './limits.js';
import { Out } from './out.js';
import { arr, bytes as bytesOf, int, obj } from './primitives.js';
import {
  CT_CHILDSHAPE_BLOCK,
  CT_CHILDSHAPE_PART,
  CT_RIGIDBODY_DYNAMIC,
  CT_RIGIDBODY_STATIC,
  NETOBJ_TYPES,
  SM_MAX_DELTA_BASE,
  SM_MAX_RAW_SIZE,
  UPDATE_TYPES,
  type NetworkUpdate,
  type NetworkUpdateBody,
  type Variant,
} from './types.js';

/** A NetObj type name's number (the 5-bit type of the wire). */
export const NETOBJ_BY_NAME = new Map<string, number>(NETOBJ_TYPES.map((n, i) => [n, i]));
const UT_MAP = new Map<string, number>(Object.entries(UPDATE_TYPES));

function netObjTypeOf(v: unknown, path: string): number {
  if (typeof v === 'string') {
    const i = NETOBJ_BY_NAME.get(v);
    if (i !== undefined) return i;
  }
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 14) return v;
  throw new EncodeError(path, `expected a NetObj type name (${NETOBJ_TYPES.join(', ')}), got ${excerpt(v)}`);
}

/** Write one NetworkUpdate with its be u16 size field (the reconstructed RawUpdate form). */
export function writeNetworkUpdate(o: Out, u: unknown, path = '', variantHint?: Variant): void {
  const x = obj(u, path);
  const ut = typeof x.updateType === 'string' ? UT_MAP.get(x.updateType) : undefined;
  if (ut === undefined) throw new EncodeError(`${path}.updateType`, `expected Create, P, Update or Remove, got ${excerpt(x.updateType)}`);
  const ot = netObjTypeOf(x.netObjType, `${path}.netObjType`);
  if (ut === 2 && ot !== 2) throw new EncodeError(`${path}.updateType`, 'P exists only for Joint');
  const id = int(x.id, 0, 0xffffffff, `${path}.id`);
  const start = o.pos;
  o.u16(0);
  o.u8((ut << 5) | ot);
  let ct: number | undefined;
  if (ut === 1) {
    ct = int(x.controllerType, 0, 255, `${path}.controllerType`);
    o.u8(ct);
  }
  o.u32(id);
  writeData(o, x, ut, ot, ct, path, variantHint);
  const size = o.pos - start;
  if (size > SM_MAX_RAW_SIZE) throw new EncodeError(path, `update of ${size} bytes is larger than a RawUpdate can be (0x7FFF)`);
  o.dv.setUint16(start, size);
}

/** One NetworkUpdate as RawUpdate bytes (be u16 size + data). */
export function encodeNetworkUpdate(u: NetworkUpdate | unknown, path = ''): Uint8Array {
  const o = new Out(64);
  writeNetworkUpdate(o, u, path);
  return o.finish();
}

/** How the encoder picks raw or delta. */
export type DeltaPolicy = 'replay' | 'auto' | 'raw';

/**
 * The sub-update stream writer, shared by the body encoder and the producer. Writes
 * each update's RawUpdate bytes, then turns them into a DeltaUpdate in place when the
 * form says so (§9.2, §9.3).
 */
export class SubUpdateWriter {
  private prev = new Uint8Array(72);
  private cur = new Uint8Array(72);
  /** Bitfield scratch (at most 8 bytes). */
  private readonly bf = new Uint8Array(8);
  /** Length (size field included) of the previous reconstructed update; 0 = none. */
  private prevLen = 0;
  /**
   * @param tracker controller types as the decoder will see them: each update written
   *   is checked with the decoder's own rules against it (and recorded in it), so that
   *   nothing is written that the decoder would refuse. Omit to skip the check.
   */
  constructor(
    readonly o: Out,
    readonly tracker?: ControllerTracker,
  ) {}

  /** Forget the delta base (start of a body). */
  reset(): void {
    this.prevLen = 0;
  }

  /**
   * Append `u`. `form`: 'raw', 'delta' (required: error if impossible; `bitfield`
   * replayed when given) or 'auto' (delta only if strictly shorter). Returns the form used.
   */
  write(u: unknown, form: 'raw' | 'delta' | 'auto', bitfield: Uint8Array | undefined, path: string, variantHint?: Variant): 'raw' | 'delta' {
    const o = this.o;
    const start = o.pos;
    writeNetworkUpdate(o, u, path, variantHint);
    const len = o.pos - start;
    if (this.tracker !== undefined)
      verify(o.buf, start, len, this.tracker, path, (u as { data?: unknown }).data, (u as { variant?: unknown }).variant ?? variantHint);
    let used: 'raw' | 'delta' = 'raw';
    const keepBase = len <= SM_MAX_DELTA_BASE + 2;
    const cur = this.cur;
    if (keepBase) {
      const buf = o.buf;
      for (let j = 0; j < len; j++) cur[j] = buf[start + j]!;
    }
    if (form !== 'raw') {
      const can = this.prevLen === len && keepBase;
      if (!can && form === 'delta') {
        const why =
          this.prevLen === 0
            ? 'it is the first update of the body'
            : this.prevLen !== len
              ? `the previous update is ${this.prevLen} bytes, this one ${len}`
              : `its ${len - 2} data bytes exceed 63`;
        throw new EncodeError(`${path}.form`, `cannot be a delta: ${why}`);
      }
      if (can) {
        const n = len - 2;
        const k = (n + 8) >>> 3;
        const prev = this.prev;
        const bf = this.bf;
        if (bitfield !== undefined && form === 'delta') {
          if (bitfield.length !== k) throw new EncodeError(`${path}.bitfield`, `${n} data bytes need a ${k}-byte bitfield, got ${bitfield.length}`);
          if ((bitfield[0]! & 0x80) === 0) throw new EncodeError(`${path}.bitfield`, 'the top bit (delta marker) must be 1');
          for (let i = 0; i < n; i++) {
            if ((bitfield[k - 1 - (i >>> 3)]! >>> (i & 7)) & 1 && prev[2 + i] !== cur[2 + i]) {
              throw new EncodeError(
                `${path}.bitfield`,
                `keeps data byte ${i} from the previous update, but it differs (0x${prev[2 + i]!.toString(16)} → 0x${cur[2 + i]!.toString(16)})`,
              );
            }
          }
          for (let j = 0; j < k; j++) bf[j] = bitfield[j]!;
        } else {
          for (let j = 0; j < k; j++) bf[j] = 0;
          bf[0] = 0x80;
          for (let i = 0; i < n; i++) if (prev[2 + i] === cur[2 + i]) bf[k - 1 - (i >>> 3)]! |= 1 << (i & 7);
        }
        let repl = 0;
        for (let i = 0; i < n; i++) if (((bf[k - 1 - (i >>> 3)]! >>> (i & 7)) & 1) === 0) repl++;
        if (form === 'delta' || k + repl < len) {
          const buf = o.buf;
          for (let j = 0; j < k; j++) buf[start + j] = bf[j]!;
          let q = start + k;
          for (let i = 0; i < n; i++) if (((bf[k - 1 - (i >>> 3)]! >>> (i & 7)) & 1) === 0) buf[q++] = cur[2 + i]!;
          o.pos = q;
          used = 'delta';
        }
      }
    }
    if (keepBase) {
      // the two buffers alternate: this update becomes the base of the next one
      this.cur = this.prev;
      this.prev = cur;
    }
    this.prevLen = len;
    return used;
  }
}

/** Run the decoder's lenient check over a written RawUpdate; its refusal becomes an EncodeError. */
function verify(buf: Uint8Array, start: number, len: number, tracker: ControllerTracker, path: string, data: unknown, variant: unknown): void {
  const h = buf[start + 2]!;
  if (h >>> 5 === 3 && (h & 31) <= 1 && data !== undefined && data !== null) {
    // a RigidBody / ChildShape Update written with typed data: the decoder must pick
    // the same variant (from the tracked controller type, else from the length)
    const ot = h & 31;
    const id = ((buf[start + 3]! << 24) | (buf[start + 4]! << 16) | (buf[start + 5]! << 8) | buf[start + 6]!) >>> 0;
    const n = len - 7;
    const r =
      ot === 0
        ? pickVariant(tracker.get(ot, id), n, CT_RIGIDBODY_STATIC, 5, CT_RIGIDBODY_DYNAMIC, 2, 0, false)
        : pickVariant(tracker.get(ot, id), n, CT_CHILDSHAPE_BLOCK, 22, CT_CHILDSHAPE_PART, 17, 0, false);
    const read = r & (PICK_CT_UNKNOWN | PICK_VARIANT_UNKNOWN) ? 'opaque data' : ot === 0 ? (r & PICK_B ? 'dynamic' : 'static') : r & PICK_B ? 'part' : 'block';
    if (read !== variant)
      throw new EncodeError(
        `${path}.variant`,
        `the decoder would read these ${n} data bytes as ${read}, not ${excerpt(variant)} (trailing bytes change the length that decides it)`,
      );
  }
  try {
    checkUpdate(buf, start + 2, start + len, tracker, false);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    const at = e.path === '' ? path : path === '' ? e.path : `${path}.${e.path}`;
    throw new EncodeError(at, `the decoder would refuse this update: expected ${e.expected}${e.found === undefined ? '' : `, found ${e.found}`}`);
  }
}

/**
 * Encode a 0x15/0x16 body (tick + sub-updates). With policy 'replay' (default) each
 * update's recorded `form` and `bitfield` are replayed, so a decoded body re-encodes
 * byte for byte; 'auto' uses deltas wherever shorter (§9.2); 'raw' never.
 */
export function encodeBody(body: NetworkUpdateBody | unknown, policy: DeltaPolicy = 'replay', path = ''): Uint8Array {
  const o = new Out(256);
  writeBody(o, body, policy, path);
  return o.finish();
}

/**
 * Write a body. `tracker`: controller types as the decoder will track them (a
 * compound message shares one across its bodies); a fresh table when absent.
 */
export function writeBody(o: Out, body: unknown, policy: DeltaPolicy, path: string, tracker: ControllerTracker = new ControllerTable()): void {
  const b = obj(body, path);
  o.u32(int(b.tick, 0, 0xffffffff, `${path === '' ? '' : `${path}.`}tick`));
  const updates = arr(b.updates, `${path === '' ? '' : `${path}.`}updates`);
  const max = SM_DEFAULT_LIMITS.smMaxUpdates;
  if (updates.length > max)
    throw new EncodeError(
      `${path === '' ? '' : `${path}.`}updates`,
      `${updates.length} updates: the decoder reads at most ${max} per body (limit smMaxUpdates)`,
    );
  const w = new SubUpdateWriter(o, tracker);
  for (let i = 0; i < updates.length; i++) {
    const p = `${path === '' ? '' : `${path}.`}updates[${i}]`;
    const u = obj(updates[i], p);
    let form: 'raw' | 'delta' | 'auto';
    let bf: Uint8Array | undefined;
    if (policy === 'replay') {
      const f = u.form ?? 'auto';
      if (f !== 'raw' && f !== 'delta' && f !== 'auto') throw new EncodeError(`${p}.form`, `expected raw, delta or auto, got ${excerpt(f)}`);
      form = f;
      if (u.bitfield !== undefined && u.bitfield !== null) bf = bytesOf(u.bitfield, `${p}.bitfield`);
    } else form = policy === 'auto' ? 'auto' : 'raw';
    w.write(u, form, bf, p);
  }
}
