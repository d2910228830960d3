/**
 * Locating update frames without the key (DirStream.locate, and the framer's size guesses) on a
 * hostile server stream: every 20 bytes a position that looks like a compressed update (a u32 size of
 * 1 MiB, then a zlib header and stored blocks that run on for the whole 64 KB window). The work spent on
 * such positions is bounded by the stream's length; real update frames are found as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DirStream } from '../../src/protocols/wow/capture-stream.js';
import { LOCATE_WORK_BASE, LOCATE_WORK_PER_BYTE } from '../../src/protocols/wow/capture-sniff.js';
import { synthSession } from './synth.js';

const PERIOD = 20;

/** `n` bytes of the hostile pattern: [4 header bytes][u32 1 MiB][78 01][stored block of 15 bytes, reaching the next period's]. */
function hostile(n: number): Uint8Array {
  const p = new Uint8Array(PERIOD);
  p.set([0, 0, 0, 0, 0x00, 0x00, 0x10, 0x00, 0x78, 0x01]);
  const len = PERIOD - 5;
  p.set([0x00, len & 0xff, len >> 8, ~len & 0xff, (~len >> 8) & 0xff], 10);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += PERIOD) out.set(p.subarray(0, Math.min(PERIOD, n - i)), i);
  return out;
}

/** A sealed stream of `data`, sent in segments of `mss` bytes. */
function stream(data: Uint8Array, mss: number): DirStream {
  const ds = new DirStream();
  for (let at = 0, f = 0; at < data.length; at += mss, f++) ds.add(at, data.subarray(at, at + mss), f, f);
  ds.seal();
  return ds;
}

/** Most work one try may take past a budget: two inflates (64 KiB, then 1 MiB) of a 64 KB window, output and allocation counted. */
const ONE_TRY = 2 * 65_536 + 2 * 65_536 + 2 * (1 << 20);

test('wow capture, hostile stream: locate() spends work bounded by the stream length, not by the positions that look like frames', () => {
  const n = 200_000;
  const ds = stream(hostile(n), 1400);
  ds.locate();
  assert.equal(ds.located.size, 0);
  const bound = LOCATE_WORK_PER_BYTE * n + LOCATE_WORK_BASE + ONE_TRY;
  // 10,000 positions each worth a 64 KB window and a 1 MiB body: gigabytes of work without the bound
  assert.ok(ds.locateWaste <= bound && ds.locateWork === ds.locateWaste, `${ds.locateWork} bytes of work for ${n} bytes`);
  // the framer's size guesses, at every position that looks like a frame, are bounded the same way
  let found = 0;
  for (let q = 0; q + 10 <= n; q += PERIOD) if (ds.frameEndAt(ds.runAt(q)!, q) !== undefined) found++;
  assert.equal(found, 0);
  assert.ok(ds.guessWaste <= bound && ds.guessWork === ds.guessWaste, `${ds.guessWork} bytes of work for ${n} bytes`);
});

test('wow capture: locate() finds the update frames of a plain server stream, each at its start with its end, and nothing else', () => {
  for (const seed of [1, 2, 3]) {
    const s = synthSession({ seed, ticks: 40, real: seed === 3 });
    const total = s.server.reduce((a, f) => a + f.length, 0);
    const data = new Uint8Array(total);
    const updates = new Map<number, number>();
    for (let i = 0, at = 0; i < s.server.length; at += s.server[i]!.length, i++) {
      const f = s.server[i]!;
      data.set(f, at);
      const opcode = f[2]! | (f[3]! << 8);
      if (opcode === 0xa9 || opcode === 0x1f6) updates.set(at, at + f.length);
    }
    const ds = stream(data, 536);
    ds.locate();
    assert.ok(updates.size > 20 && ds.located.size === updates.size, `seed ${seed}: ${ds.located.size} of ${updates.size} found`);
    for (const [q, u] of ds.located) assert.equal(u.end, updates.get(q), `seed ${seed}: frame at ${q}`);
    assert.ok(ds.locateWaste <= LOCATE_WORK_PER_BYTE * total, `seed ${seed}: ${ds.locateWaste} bytes of work wasted for ${total} bytes`);
  }
});
