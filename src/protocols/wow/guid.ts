/** Packed guids (§3.1): a mask byte, then the guid's non-zero bytes, low byte first. */
import { ByteReader } from '../../core/reader.js';
import { ByteWriter } from '../../core/writer.js';
import { DecodeError, EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import { ReadContext } from './context.js';

const POPCOUNT8 = new Uint8Array(256);
for (let i = 1; i < 256; i++) POPCOUNT8[i] = (i & 1) + POPCOUNT8[i >> 1]!;

/** Read a packed guid named `name` (for errors); `span` is its span path, or undefined for none. */
export function readPackedGuid(r: ByteReader, ctx: ReadContext, name: string, span: string | undefined = name): bigint {
  const start = r.pos;
  if (start >= r.end) r.need(1, name);
  const bytes = r.bytes;
  const mask = bytes[start]!;
  const n = POPCOUNT8[mask]!;
  if (start + 1 + n > r.end) {
    throw new DecodeError(start + 1, name, `${n} guid byte${n === 1 ? '' : 's'} (mask 0x${mask.toString(16).padStart(2, '0')})`, `${r.end - start - 1} left`);
  }
  let p = start + 1;
  const g = ctx.guidBytes;
  for (let i = 0; i < 8; i++) {
    if ((mask & (1 << i)) !== 0) {
      const b = bytes[p++]!;
      if (b === 0) ctx.nonCanonical = true;
      g[i] = b;
    } else g[i] = 0;
  }
  r.pos = p;
  if (ctx.spans !== undefined && span !== undefined) ctx.spans.add(span, start, p, 'packedGuid');
  return ctx.guidView.getBigUint64(0, true);
}

/** Decode one packed guid from the start of `bytes` (must be consumed exactly). */
export function decodePackedGuid(bytes: Uint8Array): bigint {
  const r = new ByteReader(bytes);
  const g = readPackedGuid(r, new ReadContext(undefined), 'guid');
  r.expectEnd('guid');
  return g;
}

export function checkGuid(g: unknown, path: string): bigint {
  if (typeof g !== 'bigint' || g < 0n || g > 0xffffffffffffffffn) throw new EncodeError(path, `expected a guid (bigint in [0, 2^64)), got ${excerpt(g)}`);
  return g;
}

/** A guid's eight bytes, low byte first at `GUID_BYTES[GUID_LOW …]` (a store to a `BigUint64Array` costs no bigint operation). */
const GUID_64 = new BigUint64Array(1);
const GUID_BYTES = new Uint8Array(GUID_64.buffer);
/** 1 on a big-endian platform: byte i of the guid is then at 7 - i. */
const GUID_BE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 7;

export function writePackedGuid(w: ByteWriter, guid: bigint, path: string): void {
  checkGuid(guid, path);
  GUID_64[0] = guid;
  w.ensure(9);
  const maskAt = w.pos;
  w.u8(0);
  let mask = 0;
  for (let i = 0; i < 8; i++) {
    const b = GUID_BYTES[i ^ GUID_BE]!;
    if (b !== 0) {
      mask |= 1 << i;
      w.u8(b);
    }
  }
  w.patchU8(maskAt, mask);
}

/** The canonical packed form of a guid (1 to 9 bytes). */
export function encodePackedGuid(guid: bigint): Uint8Array {
  const w = new ByteWriter(9);
  writePackedGuid(w, guid, 'guid');
  return w.finish();
}

/** Size in bytes of the canonical packed form of `guid`. */
export function packedGuidSize(guid: bigint): number {
  let n = 1;
  let g = guid;
  for (let i = 0; i < 8; i++) {
    if ((g & 0xffn) !== 0n) n++;
    g >>= 8n;
  }
  return n;
}
