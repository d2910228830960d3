import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BitIn, BitOut, readGamma, writeGamma } from '../../src/replication/bits.js';
import { ByteReader } from '../../src/core/reader.js';
import { ByteWriter } from '../../src/core/writer.js';
import { t, defineEntity, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { ACK_MAGIC } from '../../src/replication/wire.js';

/** The plain reference: a stream as an array of bits, least significant first. */
function refBits(chunks: { v: number; n: number }[]): number[] {
  const out: number[] = [];
  for (const { v, n } of chunks) for (let i = 0; i < n; i++) out.push(Math.floor(v / 2 ** i) % 2);
  return out;
}

function refBytes(bits: number[]): Uint8Array {
  const out = new Uint8Array((bits.length + 7) >>> 3);
  bits.forEach((b, i) => {
    out[i >>> 3]! |= b << (i & 7);
  });
  return out;
}

const chunk = fc.integer({ min: 0, max: 32 }).chain((n) => fc.record({ v: fc.integer({ min: 0, max: 2 ** n - 1 }), n: fc.constant(n) }));

test('BitOut.write, appendFrom and bytesInto match a bit-by-bit reference at every alignment (after a reset of a dirty buffer too: reset clears nothing)', () => {
  let unaligned = 0;
  let multiword = 0;
  fc.assert(
    fc.property(
      fc.array(chunk, { maxLength: 12 }),
      fc.array(chunk, { maxLength: 12 }),
      fc.array(chunk, { maxLength: 24 }),
      fc.boolean(),
      (head, piece, dirt, ones) => {
        // the piece, written on its own, is what an encoding arena holds (with a word of garbage-free zeros after it)
        const src = new BitOut(2);
        for (const c of piece) src.write(c.v, c.n);
        const out = new BitOut(1);
        // (all ones, or random bits, written before: none may leak into what follows)
        for (const c of dirt) out.write(ones ? 2 ** c.n - 1 : c.v, c.n);
        out.reset();
        for (const c of head) out.write(c.v, c.n);
        const at = out.pos;
        if ((at & 31) !== 0) unaligned++;
        if (src.pos > 32) multiword++;
        out.appendFrom(src.words, 0, src.pos);
        out.write(5, 3);
        const want = refBits([...head, ...piece, { v: 5, n: 3 }]);
        assert.equal(out.pos, want.length);
        const dst = new Uint8Array(out.pos / 8 + 3).fill(0xee);
        out.bytesInto(dst, 2);
        const bytes = refBytes(want);
        assert.deepEqual(dst.subarray(2, 2 + bytes.length), bytes);
        assert.equal(dst[0], 0xee);
        assert.deepEqual(out.bytes(), bytes);
      },
    ),
    { numRuns: 400, seed: 5 },
  );
  assert.ok(unaligned > 100 && multiword > 100, `unaligned ${unaligned}, multi-word ${multiword}`);
});

test('BitOut.appendBits copies any bit range of a word array (every source and target alignment) as the reference does', () => {
  let unalignedSrc = 0;
  fc.assert(
    fc.property(fc.array(chunk, { maxLength: 16 }), fc.array(chunk, { maxLength: 8 }), fc.nat(), fc.nat(), (srcChunks, head, a, b) => {
      const src = new BitOut(1);
      for (const c of srcChunks) src.write(c.v, c.n);
      const all = refBits(srcChunks);
      const from = all.length === 0 ? 0 : a % (all.length + 1);
      const len = b % (all.length - from + 1);
      if ((from & 31) !== 0) unalignedSrc++;
      // (a zero word after the source bits, as the server's kept packet bodies have)
      const words = new Uint32Array(((src.pos + 31) >>> 5) + 1);
      words.set(src.words.subarray(0, (src.pos + 31) >>> 5));
      const out = new BitOut(1);
      for (const c of head) out.write(c.v, c.n);
      out.appendBits(words, from, len);
      out.write(3, 2);
      const want = [...refBits(head), ...all.slice(from, from + len), 1, 1];
      assert.equal(out.pos, want.length);
      assert.deepEqual(out.bytes(), refBytes(want));
    }),
    { numRuns: 500, seed: 9 },
  );
  assert.ok(unalignedSrc > 200, `unaligned sources: ${unalignedSrc}`);
});

test('ReplicationClient.ack() is the ack of the wire page (magic, schema hash u32 LE, session u32 LE, tick LEB128) for any tick and session', () => {
  const D = defineEntity('D', { x: t.u8() });
  const cl = new ReplicationClient({ entities: [D] });
  const server = new ReplicationServer({ session: 1, entities: [D] });
  const priv = cl as unknown as { latest: number; ses: number };
  fc.assert(
    fc.property(
      fc.oneof(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.constantFrom(127, 128, 16383, 16384, 0x1fffff, 0x200000, 0xfffffff, 0x10000000, 0xffffffff),
      ),
      fc.oneof(fc.constant(0), fc.constant(1), fc.integer({ min: 1, max: 0xffffffff })),
      (tick, session) => {
        priv.latest = tick;
        priv.ses = session;
        const want = new ByteWriter(14).u8(ACK_MAGIC).u32le(cl.hash).u32le(session).vu32(tick).finish();
        assert.deepEqual([...cl.ack()], [...want]);
        const r = new ByteReader(cl.ack());
        assert.equal(r.u8('m'), ACK_MAGIC);
        assert.equal(r.u32le('h'), server.hash);
        assert.equal(r.u32le('s'), session);
        assert.equal(r.vu32('t'), tick);
        r.expectEnd('end');
      },
    ),
    { numRuns: 2000 },
  );
});

test('writeGamma writes the Elias gamma code of the wire page (L-1 zeros, a one, the L-1 bits below the top bit, LSB first) for every length 1..32, and readGamma reads it back', () => {
  const lengths = new Set<number>();
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 31 }), fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 40 }), (top, low, lead) => {
      // a value of each bit length (its top bit `top`, the rest from `low`)
      const n = 2 ** top + (low % 2 ** top);
      const L = top + 1;
      lengths.add(L);
      const out = new BitOut(1);
      out.write(0x5a5a5a5a, Math.min(lead, 32));
      if (lead > 32) out.write(0x3, lead - 32);
      const before = refBits([{ v: 0x5a5a5a5a, n: Math.min(lead, 32) }, ...(lead > 32 ? [{ v: 3, n: lead - 32 }] : [])]);
      writeGamma(out, n);
      const want = [...before, ...Array<number>(L - 1).fill(0), 1, ...refBits([{ v: n % 2 ** (L - 1), n: L - 1 }])];
      assert.equal(out.pos, want.length);
      const bytes = new Uint8Array((out.pos + 7) >>> 3);
      out.bytesInto(bytes, 0);
      assert.deepEqual([...bytes], [...refBytes(want)]);
      const inp = new BitIn(bytes, 0, bytes.length);
      if (lead > 0) inp.read(Math.min(lead, 32), 'lead');
      if (lead > 32) inp.read(lead - 32, 'lead');
      assert.equal(readGamma(inp, 'gap'), n);
    }),
    { numRuns: 3000 },
  );
  assert.equal(lengths.size, 32);
});
