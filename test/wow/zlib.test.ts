/**
 * Issue 14 item 4: compressed frames. The same bytes give the same result —
 * value or error — through the portable decoder (the default, also the
 * browser's) and node:zlib; a stream of corrupt frames costs no memory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError } from '../../src/core/errors.js';
import { fromHex, toHex } from '../../src/core/hex.js';
import { InflatedZlib, deflateZlib, inflateZlib, inflateZlibAsync, inflateZlibMany, type ZlibImpl } from '../../src/core/zlib.js';
import { adler32 } from '../../src/core/inflate.js';
import { decodePacket, encodeBody, encodePacket, encodeUpdatePacket, frame, type UpdateBody } from '../../src/protocols/wow/index.js';
import { loadFixtures } from './helpers.js';

type Outcome = { ok: true; hex: string } | { ok: false; error: DecodeError };

function outcome(fn: () => Uint8Array): Outcome {
  try {
    return { ok: true, hex: toHex(fn()) };
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return { ok: false, error: e };
  }
}

function agree(z: Uint8Array, opts: { expectedSize?: number; maxOutput?: number } = {}): Outcome {
  const node = outcome(() => inflateZlib(z, { ...opts, impl: 'node' }));
  const portable = outcome(() => inflateZlib(z, { ...opts, impl: 'portable' }));
  assert.equal(
    portable.ok,
    node.ok,
    `${toHex(z).slice(0, 120)}: node ${node.ok ? 'ok' : node.error.message}, portable ${portable.ok ? 'ok' : portable.error.message}`,
  );
  if (node.ok && portable.ok) assert.equal(portable.hex, node.hex);
  return portable;
}

/** LSB-first bit writer for hand-made deflate streams. */
class Bits {
  private out: number[] = [];
  private acc = 0;
  private n = 0;
  put(value: number, count: number): this {
    for (let i = 0; i < count; i++) this.bit((value >>> i) & 1);
    return this;
  }
  /** A Huffman code, most significant bit first. */
  code(code: number, len: number): this {
    for (let i = len - 1; i >= 0; i--) this.bit((code >>> i) & 1);
    return this;
  }
  private bit(b: number): void {
    this.acc |= b << this.n++;
    if (this.n === 8) {
      this.out.push(this.acc);
      this.acc = 0;
      this.n = 0;
    }
  }
  bytes(): Uint8Array {
    return new Uint8Array(this.n > 0 ? [...this.out, this.acc] : this.out);
  }
}

/**
 * A dynamic block whose literal/length code is {0, 256} (one bit each) and
 * whose distance code has three one-bit lengths: over-subscribed.
 */
function invalidDistancesSet(): Uint8Array {
  const w = new Bits().put(1, 1).put(2, 2); // final, dynamic
  w.put(0, 5).put(2, 5).put(14, 4); // 257 literal/length codes, 3 distance codes, 18 code-length codes
  // code-length code: symbols 0, 1, 2, 18 with two bits each (codes 00, 01, 10, 11)
  const order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1];
  for (const s of order) w.put(s === 0 || s === 1 || s === 2 || s === 18 ? 2 : 0, 3);
  const clen = (s: number) => w.code(s === 0 ? 0 : s === 1 ? 1 : s === 2 ? 2 : 3, 2);
  clen(1); // literal 0: length 1
  clen(18).put(138 - 11, 7); // literals 1 … 138: 0
  clen(18).put(117 - 11, 7); // literals 139 … 255: 0
  clen(1); // 256: length 1
  clen(1).put(0, 0);
  clen(1);
  clen(1); // three distance codes of one bit
  const deflate = w.bytes();
  return new Uint8Array([0x78, 0x01, ...deflate, 0, 0, 0, 1]);
}

test('issue 14 reproducer: a stored block with a wrong NLEN is a DecodeError on both paths', () => {
  const bad = fromHex('0016f6010500000078010105000000000000000000050001');
  for (const impl of ['node', 'portable', undefined] as const) {
    const opts = impl === undefined ? {} : { zlibImpl: impl as ZlibImpl };
    assert.throws(
      () => decodePacket(bad, opts),
      (e: unknown) => e instanceof DecodeError && e.path.startsWith('zlib') && /stored block lengths/.test(e.message),
    );
  }
  // the same block with the right NLEN inflates (to nothing, as declared)
  const good = fromHex('0016f601050000007801010500faff000000000000050001');
  const g = agree(good.subarray(8), { expectedSize: 5 }); // 5 stored zeros: an empty body
  assert.ok(g.ok && g.hex === '0000000000');
  assert.deepEqual(decodePacket(good), { opcode: 0x1f6, body: { hasTransport: 0, blocks: [] }, uncompressedSize: 5, zlib: good.slice(8) });
  const z = new Uint8Array([0x78, 0x01, 0x01, 5, 0, 0xfa, 0xff, 1, 2, 3, 4, 5]);
  const a = adler32(new Uint8Array([1, 2, 3, 4, 5]));
  const withCheck = new Uint8Array([...z, a >>> 24, (a >>> 16) & 0xff, (a >>> 8) & 0xff, a & 0xff]);
  const r = agree(withCheck);
  assert.ok(r.ok && r.hex === '0102030405');
});

test('issue 14 reproducer: an over-subscribed distance code set ("invalid distances set") is refused by both paths', () => {
  const z = invalidDistancesSet();
  assert.throws(
    () => inflateZlib(z, { impl: 'node' }),
    (e: unknown) => e instanceof DecodeError && /distances set/.test(e.message),
  );
  assert.throws(
    () => inflateZlib(z, { impl: 'portable' }),
    (e: unknown) => e instanceof DecodeError && /distances set/.test(e.message),
  );
  assert.throws(() => inflateZlib(z), DecodeError);
});

test('the Adler-32 is checked on both paths', () => {
  const body = new TextEncoder().encode('hello hello hello hello');
  const z = deflateZlib(body, 6);
  assert.equal(agree(z).ok, true);
  const bad = z.slice();
  bad[bad.length - 1]! ^= 1;
  const r = agree(bad);
  assert.ok(!r.ok && /data check/.test(r.error.message));
});

/** Bodies that look like WoW's: runs, repeated records, noise. */
const bodyArb = fc.oneof(
  fc.uint8Array({ maxLength: 600 }),
  fc.array(fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 24 }), fc.integer({ min: 1, max: 40 })), { maxLength: 20 }).map((parts) => {
    const out: number[] = [];
    for (const [p, n] of parts) for (let i = 0; i < n; i++) out.push(...p);
    return new Uint8Array(out);
  }),
);
const mutationArb = fc.array(fc.tuple(fc.constantFrom('flip', 'set', 'insert', 'delete', 'truncate'), fc.nat(), fc.integer({ min: 0, max: 255 })), {
  minLength: 0,
  maxLength: 3,
});

function mutate(src: Uint8Array, muts: Array<[string, number, number]>): Uint8Array {
  let b = Array.from(src);
  for (const [kind, at, v] of muts) {
    const i = b.length === 0 ? 0 : at % b.length;
    if (kind === 'flip' && b.length) b[i] = b[i]! ^ (1 << (v & 7));
    else if (kind === 'set' && b.length) b[i] = v;
    else if (kind === 'insert') b.splice(i, 0, v);
    else if (kind === 'delete') b.splice(i, 1);
    else if (kind === 'truncate') b = b.slice(0, i);
  }
  return new Uint8Array(b);
}

test('property: mutated zlib streams give the same value or error through node:zlib and the portable decoder', () => {
  let errors = 0;
  let values = 0;
  fc.assert(
    fc.property(bodyArb, fc.constantFrom(0, 1, 6, 9), mutationArb, fc.boolean(), (body, level, muts, sized) => {
      const z = mutate(deflateZlib(body, level), muts);
      const r = agree(z, sized ? { expectedSize: body.length } : { maxOutput: 1 << 16 });
      if (r.ok) values++;
      else errors++;
    }),
    { numRuns: 2000 },
  );
  // and the fixture's own stream, mutated
  for (const fx of loadFixtures()) {
    if (fx.expected.compression === null) continue;
    const z = fx.payload.subarray(4);
    fc.assert(
      fc.property(mutationArb, (muts) => {
        const r = agree(mutate(z, muts), { expectedSize: fx.body.length });
        if (r.ok) values++;
        else errors++;
      }),
      { numRuns: 800 },
    );
  }
  assert.ok(errors > 500 && values > 500, `${errors} errors, ${values} values`);
});

test('property: random bytes behind a zlib header give the same result on both paths', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), fc.constantFrom([0x78, 0x01], [0x78, 0x9c], [0x78, 0xda], [0x08, 0x1d]), (rest, head) => {
      agree(new Uint8Array([...head, ...rest]), { maxOutput: 1 << 16 });
    }),
    { numRuns: 2000 },
  );
});

/** The DecompressionStream path (what a browser uses through inflateZlibAsync) against the strict decoder. */
async function agreeAsync(z: Uint8Array, opts: { expectedSize?: number; maxOutput?: number }): Promise<boolean> {
  const sync = outcome(() => inflateZlib(z, opts));
  let platform: Outcome;
  try {
    platform = { ok: true, hex: toHex(await inflateZlibAsync(z, { ...opts, impl: 'platform' })) };
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    platform = { ok: false, error: e };
  }
  assert.equal(platform.ok, sync.ok, `${toHex(z).slice(0, 120)}: ${sync.ok ? 'ok' : sync.error.message} vs ${platform.ok ? 'ok' : platform.error.message}`);
  if (sync.ok && platform.ok) assert.equal(platform.hex, sync.hex);
  if (!sync.ok && !platform.ok) {
    assert.equal(platform.error.name, sync.error.name);
    assert.equal(platform.error.message, sync.error.message);
    assert.equal(platform.error.offset, sync.error.offset);
  }
  return sync.ok;
}

test('property: inflateZlibAsync through DecompressionStream gives the same value or error as inflateZlib', async () => {
  assert.equal(typeof (globalThis as { DecompressionStream?: unknown }).DecompressionStream, 'function');
  let errors = 0;
  let values = 0;
  await fc.assert(
    fc.asyncProperty(bodyArb, fc.constantFrom(0, 1, 9), mutationArb, fc.constantFrom('sized', 'capped', 'small cap'), async (body, level, muts, how) => {
      const z = mutate(deflateZlib(body, level), muts);
      const opts = how === 'sized' ? { expectedSize: body.length } : { maxOutput: how === 'capped' ? 1 << 16 : Math.max(0, body.length - 1) };
      if (await agreeAsync(z, opts)) values++;
      else errors++;
    }),
    { numRuns: 600 },
  );
  // bytes after the Adler-32 (DecompressionStream refuses them; inflateZlib does not read them)
  const z = deflateZlib(new Uint8Array(1000).fill(7), 6);
  assert.equal(await agreeAsync(new Uint8Array([...z, 1, 2, 3]), { expectedSize: 1000 }), true);
  assert.ok(errors > 40 && values > 40, `${errors} errors, ${values} values`);
});

test('the output cap stops a bomb on both paths, with the same error kind', () => {
  const bomb = deflateZlib(new Uint8Array(8 << 20), 9);
  for (const impl of ['node', 'portable'] as const) {
    assert.throws(
      () => inflateZlib(bomb, { impl, maxOutput: 1 << 16 }),
      (e: unknown) => e instanceof DecodeError && e.name === 'LimitError',
    );
    assert.throws(
      () => inflateZlib(bomb, { impl, expectedSize: 1000 }),
      (e: unknown) => e instanceof DecodeError && e.name === 'DecodeError',
    );
  }
});

test('issue 14 reproducer: 100,000 corrupt SMSG_COMPRESSED_UPDATE_OBJECT frames in one synchronous loop keep memory flat', () => {
  // size 10, zlib header, then a block of type 3 (invalid) — and a few other ways to be wrong
  const payloads = [
    fromHex('0a000000 7801 07000000'.replace(/ /g, '')),
    fromHex('0a000000 7801 0105000000'.replace(/ /g, '')),
    fromHex('0a000000 7801 4b4c4a4e 00000000'.replace(/ /g, '')),
    fromHex('0a000000 7802 0300000000'.replace(/ /g, '')),
  ];
  const frames = payloads.map((p) => frame(0x1f6, p));
  const stream: Uint8Array[] = [];
  let bytes = 0;
  while (bytes < 65536) {
    const f = frames[stream.length % frames.length]!;
    stream.push(f);
    bytes += f.length;
  }
  const before = process.memoryUsage().rss;
  let failed = 0;
  for (let i = 0; i < 100_000; i++) {
    try {
      decodePacket(stream[i % stream.length]!);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      failed++;
    }
  }
  const grown = (process.memoryUsage().rss - before) / (1 << 20);
  assert.equal(failed, 100_000);
  // node:zlib kept every failed stream's native state here: +655 MB before the fix
  assert.ok(grown < 96, `rss grew by ${grown.toFixed(0)} MB over 100,000 corrupt frames`);
  const fx = stream.length;
  assert.ok(fx > 4000, `${fx} frames in a 64 KB stream`);
});

test('property: adler32 (eight bytes a step) equals the byte-at-a-time definition, on any range, all-0xff runs included', () => {
  const reference = (b: Uint8Array, start: number, end: number): number => {
    let a = 1;
    let s = 0;
    for (let i = start; i < end; i++) {
      a = (a + b[i]!) % 65521;
      s = (s + a) % 65521;
    }
    return ((s << 16) | a) >>> 0;
  };
  fc.assert(
    fc.property(
      fc.oneof(
        fc.uint8Array({ maxLength: 5000 }),
        fc.integer({ min: 0, max: 9000 }).map((n) => new Uint8Array(n).fill(0xff)),
      ),
      fc.nat(),
      fc.nat(),
      (b, x, y) => {
        const start = b.length === 0 ? 0 : x % b.length;
        const end = start + (b.length === 0 ? 0 : y % (b.length - start + 1));
        assert.equal(adler32(b, start, end), reference(b, start, end));
      },
    ),
    { numRuns: 300, seed: 19 },
  );
});

test('streams with codes longer than the decoding table root (11–15 bits): the same value or error through node:zlib and the portable decoder, whole, cut and mutated', () => {
  // byte k about 1.6^-k as often as byte 0: Huffman codes of up to 15 bits in each dynamic block
  const r = { x: 12345 };
  const next = (): number => {
    r.x = (Math.imul(r.x, 1103515245) + 12345) >>> 0;
    return r.x / 2 ** 32;
  };
  const data = new Uint8Array(60_000);
  for (let i = 0; i < data.length; i++) data[i] = Math.min(60, Math.floor(-Math.log(1 - next()) / Math.log(1.6)));
  let errors = 0;
  for (const level of [1, 6, 9]) {
    const z = deflateZlib(data, level, 'node');
    assert.deepEqual(inflateZlib(z, { impl: 'portable', maxOutput: 1 << 20 }), data);
    for (const cut of [z.length >> 2, z.length >> 1, z.length - 5]) if (!agree(z.subarray(0, cut), { maxOutput: 1 << 20 }).ok) errors++;
    fc.assert(
      fc.property(mutationArb, (muts) => {
        if (!agree(mutate(z, muts), { maxOutput: 1 << 20 }).ok) errors++;
      }),
      { numRuns: 60, seed: level },
    );
  }
  assert.ok(errors > 60, `${errors} errors`);
});

test('property: a compressed frame with bytes after its zlib stream: the same value or error (offset, path, message) on both paths; accepted exactly when its last four bytes are the Adler-32 of the body', () => {
  type FrameOutcome = { ok: true; hex: string } | { ok: false; at: number; path: string; message: string };
  const run = (f: Uint8Array, impl: ZlibImpl): FrameOutcome => {
    try {
      const p = decodePacket(f, { zlibImpl: impl }) as { body?: unknown; opcode: number };
      return { ok: true, hex: toHex(encodeBody((p as { body: Parameters<typeof encodeBody>[0] }).body)) };
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      return { ok: false, at: e.offset, path: e.path, message: e.message };
    }
  };
  let accepted = 0;
  let refused = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 40 }),
      fc.uint8Array({ maxLength: 9 }),
      fc.constantFrom('none', 'random', 'checksum', 'checksum-twice'),
      (n, noise, tail) => {
        const body = encodeBody({ hasTransport: 0, blocks: Array.from({ length: n }, (_, i) => ({ updateType: 4 as const, guids: [BigInt(i)] })) });
        const z = deflateZlib(body, 1);
        const sum = z.subarray(z.length - 4);
        const extra = tail === 'none' ? [] : tail === 'random' ? [...noise] : tail === 'checksum' ? [...noise, ...sum] : [...sum, ...noise, ...sum];
        const payload = new Uint8Array(4 + z.length + extra.length);
        new DataView(payload.buffer).setUint32(0, body.length, true);
        payload.set(z, 4);
        payload.set(extra, 4 + z.length);
        const f = frame(0x1f6, payload);
        const portable = run(f, 'portable');
        assert.deepStrictEqual(portable, run(f, 'node'));
        const last = payload.subarray(payload.length - 4);
        const want = ((last[0]! << 24) | (last[1]! << 16) | (last[2]! << 8) | last[3]!) >>> 0 === adler32(body);
        assert.equal(portable.ok, want);
        if (portable.ok) {
          accepted++;
          assert.equal(portable.hex, toHex(body));
        } else {
          refused++;
          assert.deepStrictEqual([portable.at, portable.path], [f.length, 'zlib']);
        }
      },
    ),
    { numRuns: 400 },
  );
  assert.ok(accepted > 50 && refused > 50, `${accepted} accepted, ${refused} refused`);
});

test('property: inflateZlibMany (DecompressionStream, several in flight) gives per stream the value or the error of inflateZlib; InflatedZlib finds a body by its bytes', async () => {
  assert.equal(typeof (globalThis as { DecompressionStream?: unknown }).DecompressionStream, 'function');
  let errors = 0;
  let values = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(bodyArb, fc.constantFrom(0, 1, 9), mutationArb, fc.boolean()), { minLength: 1, maxLength: 9 }), async (list) => {
      const streams = list.map(([body, level, muts, sized]) => {
        const z = mutate(deflateZlib(body, level), muts);
        return sized ? { z, expectedSize: body.length } : { z };
      });
      const got = await inflateZlibMany(streams, { impl: 'platform', maxOutput: 1 << 16 });
      assert.equal(got.length, streams.length);
      const cache = await InflatedZlib.of(streams, { impl: 'platform', maxOutput: 1 << 16 });
      streams.forEach((s, i) => {
        const want = outcome(() => inflateZlib(s.z, { ...s, maxOutput: 1 << 16 }));
        const g = got[i]!;
        if (want.ok) {
          values++;
          assert.ok(g instanceof Uint8Array, `stream ${i}: ${String(g)}`);
          assert.equal(toHex(g), want.hex);
          // found by its bytes (a copy), not found once a byte differs
          assert.equal(toHex(cache.get(s.z.slice())!), want.hex);
          const other = s.z.slice();
          other[0]! ^= 1;
          assert.equal(cache.get(other), undefined);
        } else {
          errors++;
          assert.ok(g instanceof DecodeError, `stream ${i}: expected ${want.error.message}`);
          assert.deepEqual([g.name, g.message, g.offset], [want.error.name, want.error.message, want.error.offset]);
          assert.equal(cache.get(s.z), undefined);
        }
      });
    }),
    { numRuns: 120 },
  );
  assert.ok(errors > 40 && values > 40, `${errors} errors, ${values} values`);
  // an empty output ends too (no read waits for a chunk that never comes)
  const empty = deflateZlib(new Uint8Array(0), 6);
  assert.deepEqual(await inflateZlibMany([{ z: empty, expectedSize: 0 }], { impl: 'platform' }), [new Uint8Array(0)]);
});

test('the compressed encoders refuse a body past maxZlibOutput when it is the smaller limit (the decoder would refuse it)', () => {
  const body: UpdateBody = { hasTransport: 0, blocks: [{ updateType: 4, guids: Array.from({ length: 300 }, (_, i) => BigInt(i + 1)) }] };
  const n = encodeBody(body).length;
  const limits = { maxZlibOutput: n - 1 };
  assert.throws(() => encodePacket({ opcode: 0x1f6, body, uncompressedSize: n }, { limits }), { name: 'EncodeError', message: /maxZlibOutput/ });
  assert.throws(() => encodeUpdatePacket(body, { limits, compressThreshold: 0 }), { name: 'EncodeError', message: /maxZlibOutput/ });
  // at the limit it is written, and read back under the same limits
  const ok = encodePacket({ opcode: 0x1f6, body, uncompressedSize: n }, { limits: { maxZlibOutput: n } });
  assert.equal(decodePacket(ok, { limits: { maxZlibOutput: n } }).opcode, 0x1f6);
});
