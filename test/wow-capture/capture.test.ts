import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toHex } from '../../src/core/hex.js';
import { decodeWowCapture, type WowCaptureEvent, type WowFrame, type WowKeyReport } from '../../src/protocols/wow/capture.js';
import { decodePacket } from '../../src/protocols/wow/index.js';
import { realFrames, synthSession, vectorFrames, type SynthOptions, type SynthSession } from './synth.js';

const frames = (ev: WowCaptureEvent[], dir: 'server' | 'client') => ev.filter((e): e is WowFrame => e.kind === 'frame' && e.direction === dir);
const keyOf = (ev: WowCaptureEvent[]) => ev.find((e): e is WowKeyReport => e.kind === 'key')!;

/** Frames decoded exactly (same bytes at the same stream offset as sent), and frames decoded wrong. */
function score(s: SynthSession, ev: WowCaptureEvent[], dir: 'server' | 'client', base = 0): { exact: number; wrong: number; incomplete: number } {
  const list = dir === 'server' ? s.server : s.client;
  const offs = dir === 'server' ? s.serverOffsets : s.clientOffsets;
  const at = new Map(offs.map((o, i) => [o - base, i]));
  let exact = 0;
  let wrong = 0;
  let incomplete = 0;
  for (const f of frames(ev, dir)) {
    if (!f.complete) {
      incomplete++;
      continue;
    }
    const i = at.get(f.offset);
    if (i !== undefined && toHex(list[i]!) === toHex(f.bytes)) exact++;
    else wrong++;
  }
  return { exact, wrong, incomplete };
}

const impaired: Partial<SynthOptions> = { retransmit: 0.1, reorder: 0.1, coalesce: 0.3 };

test('wow capture: with the session key every frame of both directions comes back exactly (random segmentation, retransmission, reordering; IPv4 and IPv6)', () => {
  let total = 0;
  for (let seed = 1; seed <= 6; seed++) {
    const s = synthSession({ seed, ticks: 25, ipv6: seed % 2 === 0, ...impaired });
    const ev = decodeWowCapture(s.pcap, { sessionKey: s.key });
    const sv = score(s, ev, 'server');
    const cl = score(s, ev, 'client');
    assert.deepEqual(sv, { exact: s.server.length, wrong: 0, incomplete: 0 }, `seed ${seed} server`);
    assert.deepEqual(cl, { exact: s.client.length, wrong: 0, incomplete: 0 }, `seed ${seed} client`);
    assert.equal(ev.filter((e) => e.kind === 'gap' || e.kind === 'skip').length, 0);
    const k = keyOf(ev);
    assert.deepEqual([k.frames, k.badOpcodes], [s.server.length + s.client.length - 2, 0]);
    // Frame order per direction is stream order.
    const offs = frames(ev, 'server').map((f) => f.offset);
    assert.deepEqual(
      offs,
      [...offs].sort((a, b) => a - b),
    );
    total += sv.exact + cl.exact;
  }
  assert.ok(total > 6 * 80, `${total} frames checked`);
});

test('wow capture: the real BloogBot frames and the wow_messages vectors travel through an encrypted session and decode to their fixture bytes', () => {
  const s = synthSession({ seed: 42, ticks: 30, real: true, ...impaired });
  const want = new Set([...realFrames(), ...vectorFrames()].map(toHex));
  assert.equal(want.size, 88 + 3 - 0 - countDupes([...realFrames(), ...vectorFrames()]));
  for (const opts of [{ sessionKey: s.key }, {}]) {
    const ev = decodeWowCapture(s.pcap, opts);
    const got = new Set(frames(ev, 'server').map((f) => toHex(f.bytes)));
    let seen = 0;
    for (const h of want) if (got.has(h)) seen++;
    assert.equal(seen, want.size, `${opts.sessionKey ? 'with' : 'without'} key`);
    // and they decode as update frames
    for (const f of frames(ev, 'server')) if (want.has(toHex(f.bytes))) decodePacket(f.bytes);
  }
});

function countDupes(fs: Uint8Array[]): number {
  return fs.length - new Set(fs.map(toHex)).size;
}

test('wow capture without the key: all 40 key bytes recovered from the client headers and the auth response; every frame decoded', () => {
  for (let seed = 10; seed < 16; seed++) {
    const s = synthSession({ seed, ticks: 25, ...impaired });
    const ev = decodeWowCapture(s.pcap);
    const k = keyOf(ev);
    assert.equal(k.source, 'recovered');
    assert.equal(k.known, 40, `seed ${seed}`);
    assert.deepEqual(k.key, [...s.key], `seed ${seed}: the recovered key is the key`);
    assert.ok((k.evidence['client-opcode-high'] ?? 0) >= 40, JSON.stringify(k.evidence));
    assert.ok((k.evidence['auth-response'] ?? 0) === 2);
    assert.deepEqual(score(s, ev, 'server'), { exact: s.server.length, wrong: 0, incomplete: 0 });
    assert.deepEqual(score(s, ev, 'client'), { exact: s.client.length, wrong: 0, incomplete: 0 });
  }
});

test('wow capture without the key and without the client direction: key bytes from the auth response, update payloads and segment ends; frames that decode as updates are always right', () => {
  let full = 0;
  let decoded = 0;
  let sent = 0;
  let updatesWrong = 0;
  let updates = 0;
  for (let seed = 20; seed < 28; seed++) {
    const s = synthSession({ seed, ticks: 40, serverOnly: true, ...impaired });
    const ev = decodeWowCapture(s.pcap);
    const k = keyOf(ev);
    assert.ok((k.evidence['update-payload'] ?? 0) > 0 && (k.evidence['auth-response'] ?? 0) >= 2, JSON.stringify(k.evidence));
    assert.ok(k.known >= 6, `seed ${seed}: ${k.known} key bytes`);
    if (k.key.every((b, i) => b === s.key[i])) {
      full++;
      assert.equal(k.badOpcodes, 0, `seed ${seed}: the whole key reads every opcode`);
    } else assert.ok(k.badOpcodes > 0, `seed ${seed}: a partial or wrong key shows in badOpcodes`);
    decoded += score(s, ev, 'server').exact;
    sent += s.server.length;
    // Frames read as update frames are checked against their plain payloads: never wrong.
    const want = new Set(s.server.map(toHex));
    for (const f of frames(ev, 'server')) {
      if (f.complete && f.opcode !== undefined && [0x0a9, 0x1f6].includes(f.opcode)) {
        try {
          decodePacket(f.bytes);
        } catch {
          continue; // an opcode read with a wrong key byte: the decoder reports it as an error
        }
        updates++;
        if (!want.has(toHex(f.bytes))) updatesWrong++;
      }
    }
  }
  // Measured at the time of writing: 5 of 8 sessions give the whole key; the others leave bytes unknown or wrong (reported in evidence / conflicts).
  assert.ok(full >= 4, `full key in ${full} of 8 sessions`);
  // Measured: 393 of 716 frames exactly right (the rest: wrong or unknown key bytes misframe them).
  assert.ok(decoded >= 0.5 * sent, `${decoded} of ${sent} frames`);
  assert.equal(updatesWrong, 0, `${updatesWrong} of ${updates} update frames wrong`);
  assert.ok(updates > 150, `${updates} update frames checked`);
});

test('wow capture with loss: gaps are reported with their byte counts, frames around them still decode, none wrong', () => {
  let lostBytes = 0;
  let intactDecoded = 0;
  let intact = 0;
  for (let seed = 30; seed < 36; seed++) {
    const s = synthSession({ seed, ticks: 40, loss: 0.04, ...impaired });
    for (const opts of [{ sessionKey: s.key }, {}]) {
      const ev = decodeWowCapture(s.pcap, opts);
      for (const dir of ['server', 'client'] as const) {
        const lost = s.lost[dir];
        const gaps = ev.filter((e) => e.kind === 'gap' && e.direction === dir) as { length: number }[];
        const want = lost.reduce((n, [a, b]) => n + b - a, 0);
        assert.equal(
          gaps.reduce((n, g) => n + g.length, 0),
          want,
          `seed ${seed} ${dir}: gap bytes`,
        );
        if (opts.sessionKey) lostBytes += want;
        const sc = score(s, ev, dir);
        assert.equal(sc.wrong, 0, `seed ${seed} ${dir}`);
        // Frames that no lost byte touches.
        const list = dir === 'server' ? s.server : s.client;
        const offs = dir === 'server' ? s.serverOffsets : s.clientOffsets;
        offs.forEach((o, i) => {
          const end = o + list[i]!.length;
          if (!lost.some(([a, b]) => a < end && b > o)) intact++;
        });
        intactDecoded += sc.exact;
      }
    }
  }
  assert.ok(lostBytes > 0);
  assert.ok(intactDecoded >= 0.97 * intact, `${intactDecoded} of ${intact} intact frames decoded`);
});

test('wow capture started mid-session: with the key the server stream is picked up at a frame boundary (resync)', () => {
  for (let seed = 40; seed < 44; seed++) {
    const s = synthSession({ seed, ticks: 30, startAfter: 15, ...impaired });
    const ev = decodeWowCapture(s.pcap, { sessionKey: s.key });
    const base = s.lost.server.reduce((m, [, b]) => Math.max(m, b), 0);
    const sv = score(s, ev, 'server', base);
    const missed = s.serverOffsets.filter((o) => o < base).length;
    assert.equal(sv.wrong, 0);
    // At most the frames cut by the capture start (and the few before the resync point) are missing.
    assert.ok(sv.exact >= s.server.length - missed - 3, `seed ${seed}: ${sv.exact} of ${s.server.length - missed}`);
    assert.equal(ev.find((e) => e.kind === 'connection' && e.handshake === true) !== undefined, true, 'the client handshake is still there');
  }
});

test('wow capture: a TCP connection that is not WoW is listed and skipped; without any world data nothing else is made up', () => {
  const s = synthSession({ seed: 50, ticks: 3 });
  // Garble the first bytes of both directions' first segments: no handshake to recognise.
  const bad = s.pcap.slice();
  let hits = 0;
  for (let i = 0; i + 4 < bad.length; i++) {
    if (bad[i] === 0x00 && bad[i + 1] === 0x06 && bad[i + 2] === 0xec && bad[i + 3] === 0x01) {
      bad[i + 2] = 0x00;
      hits++;
    }
  }
  assert.ok(hits >= 1);
  const ev = decodeWowCapture(bad);
  const c = ev.find((e) => e.kind === 'connection')!;
  assert.ok(c.kind === 'connection');
  // The client handshake still marks it as a world connection; frames come only from the client side key recovery.
  assert.equal(frames(ev, 'server').filter((f) => f.name === 'SMSG_AUTH_CHALLENGE').length, 0);
});
