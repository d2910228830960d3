/** murmur3's 32-bit finaliser: every input bit flips each output bit with probability about 1/2 (a signed int32 result). */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
