/** A growable output buffer with a DataView, for the encoders. */
export class Out {
  buf: Uint8Array;
  dv: DataView;
  pos = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(Math.max(16, capacity));
    this.dv = new DataView(this.buf.buffer);
  }

  /** Make room for `n` more bytes; returns the offset to write at. */
  ensure(n: number): number {
    const need = this.pos + n;
    if (need > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < need) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, this.pos));
      this.buf = next;
      this.dv = new DataView(next.buffer);
    }
    return this.pos;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }
  u16(v: number): void {
    this.ensure(2);
    this.dv.setUint16(this.pos, v);
    this.pos += 2;
  }
  u32(v: number): void {
    this.ensure(4);
    this.dv.setUint32(this.pos, v >>> 0);
    this.pos += 4;
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** A copy of what was written. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}
