/** Totality of the WoW capture reader: any capture gives events or a DecodeError, in bounded time. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../../src/core/errors.js';
import { writePcap } from '../../src/core/pcap.js';
import { buildTcpPacket, TCP_ACK, TCP_SYN } from '../../src/core/tcp.js';
import { decodeWowCapture } from '../../src/protocols/wow/capture.js';
import { rng } from '../helpers/rng.js';
import { synthSession } from './synth.js';

function total(bytes: Uint8Array, opts: Parameters<typeof decodeWowCapture>[1]): 'ok' | 'error' {
  const t0 = performance.now();
  try {
    const ev = decodeWowCapture(bytes, opts);
    assert.ok(Array.isArray(ev));
    for (const e of ev) if (e.kind === 'frame') assert.ok(e.bytes.length === e.size + 2 || e.size + 2 > 0);
    return 'ok';
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    assert.ok(Number.isInteger(e.offset) && e.offset >= 0);
    return 'error';
  } finally {
    assert.ok(performance.now() - t0 < 2000, 'one capture took more than 2 s');
  }
}

test('wow capture fuzz: 100k small random connections (handshake or not, holes, both directions, with and without a key), 50 per capture', () => {
  const r = rng(1812);
  const ri = (n: number) => Math.floor(r() * n);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => ri(256));
  const key = bytes(40);
  let connections = 0;
  let frames = 0;
  const PER_FILE = 50;
  for (let file = 0; file < 100_000 / PER_FILE; file++) {
    const pk: { time: number; data: Uint8Array }[] = [];
    for (let c = 0; c < PER_FILE; c++) {
      const port = 10000 + c;
      const seg = (server: boolean, seq: number, data: Uint8Array, flags = TCP_ACK) =>
        pk.push({
          time: pk.length,
          data: buildTcpPacket(
            server
              ? { src: '10.0.0.2', srcPort: 8085, dst: '10.0.0.1', dstPort: port, seq, flags, payload: data }
              : { src: '10.0.0.1', srcPort: port, dst: '10.0.0.2', dstPort: 8085, seq, flags, payload: data },
          ),
        });
      if (r() < 0.5) {
        seg(false, 99, new Uint8Array(0), TCP_SYN);
        seg(true, 499, new Uint8Array(0), TCP_SYN | TCP_ACK);
      }
      for (const server of [true, false]) {
        let stream = bytes(ri(server ? 160 : 60));
        if (r() < 0.6) {
          const hs = server ? Uint8Array.of(0, 6, 0xec, 0x01, ...bytes(4)) : Uint8Array.of(0, 4 + 2 + ri(3), 0xed, 0x01, 0, 0, ...bytes(2 + ri(3)));
          stream = Uint8Array.of(...hs, ...stream);
        }
        let seq = server ? 500 : 100;
        for (let at = 0; at < stream.length; ) {
          const n = 1 + ri(40);
          if (r() < 0.1) seq += ri(20); // a hole
          seg(server, seq, stream.subarray(at, at + n));
          seq += Math.min(n, stream.length - at);
          at += n;
        }
      }
    }
    const ev = decodeWowCapture(writePcap(pk), { maxConnections: PER_FILE, ...(file % 20 === 0 ? { sessionKey: key } : {}) });
    connections += ev.filter((e) => e.kind === 'connection').length;
    frames += ev.filter((e) => e.kind === 'frame').length;
  }
  // Every connection was looked at (the ones without a handshake and without a key are listed as not WoW);
  // only those with neither a SYN nor a payload byte leave no trace.
  assert.ok(connections >= 98_000 && connections <= 100_000, `${connections} connections`);
  assert.ok(frames > 50_000, `${frames} frames`);
});

test('wow capture fuzz: mutated synthetic sessions (bytes flipped anywhere in the file)', () => {
  const s = synthSession({ seed: 77, ticks: 3, retransmit: 0.1 });
  const r = rng(77);
  let errors = 0;
  for (let i = 0; i < 150; i++) {
    const f = s.pcap.slice();
    const n = 1 + Math.floor(r() * 8);
    for (let k = 0; k < n; k++) f[Math.floor(r() * f.length)] = Math.floor(r() * 256);
    if (r() < 0.2) {
      const cut = Math.floor(r() * f.length);
      if (total(f.subarray(0, cut), {}) === 'error') errors++;
    }
    if (total(f, r() < 0.5 ? { sessionKey: s.key } : {}) === 'error') errors++;
  }
  assert.ok(errors > 0, 'some mutations break the capture file itself');
});
