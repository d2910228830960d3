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

/**
 * The shortest decimal (as a number) that reads back as the float32 `Math.fround(v)` (`v` finite): what the
 * families' JSON forms print for a float32 (`0.72`, not `0.7200000286102295`). An integer below 2^24 prints as it is; any other
 * float32 has a decimal of at most 9 significant digits that reads back to it, and the decimal of `p` digits nearest
 * to it (`toPrecision(p)`) is the one to try for each `p`.
 */
export function shortestF32(v: number): number {
  const f = Math.fround(v);
  if (Number.isInteger(f) && Math.abs(f) < 2 ** 24) return f;
  for (let p = 1; p <= 9; p++) {
    const x = Number(f.toPrecision(p));
    if (Math.fround(x) === f) return x;
  }
  return f;
}
