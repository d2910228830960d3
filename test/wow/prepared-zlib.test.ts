/**
 * The inspector's head start on WoW zlib bodies (families/wow.ts `prepare`): frames
 * decoded with bodies inflated ahead by DecompressionStream give exactly what they
 * give without (records, entity ranges, inner buffers, states, errors with offsets
 * and paths), for valid and damaged compressed frames.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { wow, prepareWowZlib } from '../../src/families/wow.js';
import { planFile, planFileAsync } from '../../src/web/page/model.js';
import { toHex } from '../../src/core/hex.js';
import { buildUpdate, frame, newObserver } from '../../src/protocols/wow/index.js';
import { generateWorld } from '../../bench/wow.bench.js';

/** Compressed update frames of small worlds (one frame each), then one destroy frame. */
function manyFrames(n: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) out.push(...buildUpdate(newObserver(0xffffffn), generateWorld(20 + i, 10 + i), { compressThreshold: 100 }).packets);
  return out;
}

function decodeAll(frames: readonly Uint8Array[], prepared?: Awaited<ReturnType<typeof prepareWowZlib>>): unknown[] {
  const d = wow.createDecoder({}, prepared);
  return frames.map((f) => {
    try {
      const m = d.decode(f);
      return { m: JSON.parse(JSON.stringify(m, (_k, v) => (v instanceof Uint8Array ? toHex(v) : typeof v === 'bigint' ? String(v) : v))), state: d.state?.() };
    } catch (e) {
      const err = e as { name: string; message: string; offset?: number; path?: string };
      return { error: [err.name, err.message, err.offset, err.path] };
    }
  });
}

/** A compressed frame damaged in its zlib stream, its declared size, or by bytes after the stream. */
function damage(f: Uint8Array, how: number, at: number, v: number): Uint8Array {
  const payload = f.subarray(4);
  const z = payload.subarray(4);
  if (how === 0) {
    const p = payload.slice();
    p[4 + (at % z.length)]! ^= 1 << (v & 7);
    return frame(0x1f6, p);
  }
  if (how === 1) {
    const p = payload.slice();
    new DataView(p.buffer).setUint32(0, new DataView(p.buffer).getUint32(0, true) + (v % 3) - 1, true);
    return frame(0x1f6, p);
  }
  if (how === 2) return frame(0x1f6, new Uint8Array([...payload, v & 0xff]));
  return frame(0x1f6, payload.subarray(0, 4 + (at % z.length)));
}

test('property: WoW frames decode the same with zlib bodies inflated ahead by DecompressionStream (valid and damaged frames)', async () => {
  const frames = manyFrames(16);
  const compressed = frames.filter((f) => (f[2]! | (f[3]! << 8)) === 0x1f6);
  assert.ok(compressed.length >= 4, `${compressed.length} compressed frames`);
  let used = 0;
  let failures = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(fc.nat(compressed.length - 1), fc.integer({ min: -1, max: 3 }), fc.nat(), fc.nat(255)), { minLength: 4, maxLength: 12 }),
      async (picks) => {
        const list = picks.map(([i, how, at, v]) => (how < 0 ? compressed[i]! : damage(compressed[i]!, how, at, v)));
        const prepared = await prepareWowZlib(list, 'platform');
        assert.ok(prepared?.zlib !== undefined);
        used += prepared.zlib.size;
        const want = decodeAll(list);
        failures += want.filter((w) => (w as { error?: unknown }).error !== undefined).length;
        assert.deepEqual(decodeAll(list, prepared), want);
      },
    ),
    { numRuns: 40 },
  );
  assert.ok(used > 100 && failures > 40, `${used} bodies inflated ahead, ${failures} failures`);
});

test('prepare: nothing for a few frames or without the platform stream (Node: node:zlib), and the plan yields the same messages', async () => {
  const frames = manyFrames(8);
  assert.equal(await prepareWowZlib(frames.slice(0, 3), 'platform'), undefined);
  assert.equal(await wow.prepare!({ messages: frames }, {}), undefined);
  const text = new TextEncoder().encode(frames.map((f) => toHex(f)).join('\n'));
  const a = Array.from((await planFileAsync(wow, {}, text)).messages);
  const b = Array.from(planFile(wow, {}, text).messages);
  assert.equal(a.length, frames.length);
  assert.deepEqual(a, b);
  // with bodies inflated ahead (as in a browser) the plan's messages are the same too
  const prepared = await prepareWowZlib(frames, 'platform');
  assert.ok(prepared !== undefined && prepared.zlib!.size >= 4);
  assert.deepEqual(Array.from(planFile(wow, {}, text, undefined, prepared).messages), b);
});
