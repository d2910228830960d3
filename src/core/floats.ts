/**
 * Exact float handling. A float32 read as a JS number loses NaN payloads when
 * written back; these helpers keep the raw bits where that matters.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The uint32 bit pattern of a float32 value (canonical NaN for NaN). */
export function f32ToBits(v: number): number {
  f32[0] = v;
  return u32[0]!;
}

/** The float32 value of a uint32 bit pattern. */
export function bitsToF32(bits: number): number {
  u32[0] = bits >>> 0;
  return f32[0]!;
}

/** True when writing `bitsToF32(bits)` back as float32 would not give `bits` again (non-canonical NaN). */
export function f32NeedsBits(bits: number): boolean {
  return f32ToBits(bitsToF32(bits)) !== bits >>> 0;
}
