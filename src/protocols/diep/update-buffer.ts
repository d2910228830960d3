/**
 * `UpdateBuffer`: one decoded 0x00 packet as parallel typed arrays, reused from packet
 * to packet (the output of the one reader, `update-read.ts`).
 */
import type { FieldTable } from './tables/schema.js';
import type { Scalar } from './types.js';

/** Group sets whose field lists a buffer keeps (then it starts over): bounds the memory hostile input can take. */
const MAX_FIELD_LISTS = 256;

function growU32(a: Uint32Array, n: number): Uint32Array {
  if (n <= a.length) return a;
  const b = new Uint32Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}
function growI32(a: Int32Array, n: number): Int32Array {
  if (n <= a.length) return a;
  const b = new Int32Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}
function growF64(a: Float64Array, n: number): Float64Array {
  if (n <= a.length) return a;
  const b = new Float64Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/**
 * One decoded 0x00 packet as parallel arrays. Upcreate `i` has entries
 * `entStart[i] .. entStart[i+1]-1`; entry `j` sets field `entField[j]` (element
 * `entElem[j]`, or -1 for a scalar) to `entNum[j]`; when `entField[j]` is negative, the
 * field is `~entField[j]` and the value is `entObj[j]` (strings, references, NaN bits).
 * In updates, each array field starts with a marker entry (`entElem` -2) that carries
 * no value, so that an empty element table still names its field. A creation's groups
 * are `groups[grpStart[i] .. grpStart[i+1]-1]`.
 */
export class UpdateBuffer {
  tick = 0;
  delCount = 0;
  delId: Uint32Array = new Uint32Array(16);
  delHash: Uint32Array = new Uint32Array(16);
  upCount = 0;
  upId: Uint32Array = new Uint32Array(64);
  upHash: Uint32Array = new Uint32Array(64);
  /** 0 update, 1 creation. */
  upMode: Uint8Array = new Uint8Array(64);
  entStart: Int32Array = new Int32Array(65);
  grpStart: Int32Array = new Int32Array(65);
  groups: Int32Array = new Int32Array(64);
  entCount = 0;
  entField: Int32Array = new Int32Array(256);
  entElem: Int32Array = new Int32Array(256);
  entNum: Float64Array = new Float64Array(256);
  entObj: (Scalar | undefined)[] = [];
  /** Scratch of `fieldsOfGroups`: the groups of a creation, one flag per group. */
  private present: Uint8Array = new Uint8Array(32);
  /** Scratch: the groups of the creation being read as bits, or -1 when the table has more than 31 groups. */
  groupMask = -1;
  /** The fields of each group set seen (by `groupMask`), for `listTable`. */
  private fieldLists = new Map<number, Int32Array>();
  private listTable: FieldTable | undefined;
  /** The last list looked up (consecutive creations often share their groups); `lastMask` -1: none. */
  private lastMask = -1;
  private lastList: Int32Array = new Int32Array(0);

  /** The value of entry `j`. */
  value(j: number): Scalar {
    return this.entField[j]! < 0 ? this.entObj[j]! : this.entNum[j]!;
  }

  /** The field index of entry `j`. */
  field(j: number): number {
    const k = this.entField[j]!;
    return k < 0 ? ~k : k;
  }

  /** Room for `n` deletions. */
  reserveDeletions(n: number): void {
    this.delId = growU32(this.delId, n);
    this.delHash = growU32(this.delHash, n);
  }

  /** Room for `n` upcreates. */
  reserveUpcreates(n: number): void {
    if (this.upId.length < n) {
      this.upId = growU32(this.upId, n);
      this.upHash = growU32(this.upHash, n);
      const m = new Uint8Array(this.upId.length);
      m.set(this.upMode);
      this.upMode = m;
    }
    this.entStart = growI32(this.entStart, n + 1);
    this.grpStart = growI32(this.grpStart, n + 1);
  }

  /** Room for entry index `n - 1`. */
  reserveEntries(n: number): void {
    this.entField = growI32(this.entField, n);
    this.entElem = growI32(this.entElem, n);
    this.entNum = growF64(this.entNum, n);
  }

  /** Append group `g` at index `at`. */
  putGroup(at: number, g: number): void {
    if (at >= this.groups.length) this.groups = growI32(this.groups, at + 1);
    this.groups[at] = g;
  }

  /** Set entry `j` to an object value (string, reference, NaN bits). */
  setObj(j: number, v: Scalar): void {
    const o = this.entObj;
    while (o.length < j) o.push(undefined);
    o[j] = v;
  }

  /** The fields of groups `groups[g0 .. g1 - 1]` (`groupMask`), in global field order; cached per group set. */
  fieldsOfGroups(table: FieldTable, g0: number, g1: number): Int32Array {
    if (table !== this.listTable) {
      this.fieldLists.clear();
      this.listTable = table;
      this.lastMask = -1;
    }
    const mask = this.groupMask;
    if (mask >= 0 && mask === this.lastMask) return this.lastList;
    const cached = mask >= 0 ? this.fieldLists.get(mask) : undefined;
    if (cached !== undefined) {
      this.lastMask = mask;
      this.lastList = cached;
      return cached;
    }
    let present = this.present;
    if (present.length < table.groupCount) present = this.present = new Uint8Array(table.groupCount);
    present.fill(0, 0, table.groupCount);
    for (let g = g0; g < g1; g++) present[this.groups[g]!] = 1;
    const fieldGroup = table.fieldGroup;
    let n = 0;
    for (let f = 0; f < table.fieldCount; f++) n += present[fieldGroup[f]!]!;
    const list = new Int32Array(n);
    n = 0;
    for (let f = 0; f < table.fieldCount; f++) if (present[fieldGroup[f]!] === 1) list[n++] = f;
    if (mask >= 0) {
      if (this.fieldLists.size >= MAX_FIELD_LISTS) this.fieldLists.clear();
      this.fieldLists.set(mask, list);
      this.lastMask = mask;
      this.lastList = list;
    }
    return list;
  }
}
