/**
 * Capture decoding: sessions between our client and the fake server are written
 * to pcap (and pcapng, and Ethernet-framed pcap), then decoded through
 * `tickwire decode teeworlds --pcap FILE`; the snapshots must be the ones the
 * client saw. Also: several clients in one capture, captures that start
 * mid-connection, CLI errors, and fuzzing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { run } from '../../src/cli/main.js';
import { DecodeError } from '../../src/core/errors.js';
import { fromHex } from '../../src/core/hex.js';
import { buildUdpIpv4, LINKTYPE_ETHERNET, writePcap } from '../../src/core/pcap.js';
import { snapshotRecord } from '../../src/families/teeworlds-net.js';
import { decodeTeeworldsCapture, TeeworldsClient, type NetVersion, type ReceivedSnapshot } from '../../src/protocols/teeworlds/index.js';
import { FakeServer } from './fake-server.js';
import { toPcapng } from '../helpers/pcapng.js';

interface Frame {
  time: number;
  data: Uint8Array;
}

/** Run `clients` sessions against one fake server each (same server endpoint), recording all datagrams. */
function recordSessions(version: NetVersion, ddnet: boolean, clients: number, ms: number, opts: { fillerItems?: number } = {}) {
  const frames: Frame[] = [];
  const seen: string[][] = [];
  const rigs = Array.from({ length: clients }, (_, k) => {
    const toC: Uint8Array[] = [];
    const toS: Uint8Array[] = [];
    const server = new FakeServer({ version, ddnet, ...opts }, (b) => toC.push(b));
    const client = new TeeworldsClient({ version, ddnetToken: ddnet, name: `cap${k}` }, (b) => toS.push(b));
    const port = 40000 + k;
    const snaps: string[] = [];
    seen.push(snaps);
    client.on('datagram', (d) => {
      const data =
        d.direction === 'out' ? buildUdpIpv4('127.0.0.1', port, '127.0.0.1', 8303, d.bytes) : buildUdpIpv4('127.0.0.1', 8303, '127.0.0.1', port, d.bytes);
      frames.push({ time: 1700000000 + frames.length / 1000, data });
    });
    client.on('snapshot', (s: ReceivedSnapshot) => snaps.push(summary(snapshotRecord(s, client.snapshots.declarations))));
    return { server, client, toC, toS };
  });
  for (const r of rigs) r.client.start(0);
  for (let now = 20; now <= ms; now += 20) {
    for (const r of rigs) {
      r.client.update(now);
      if (now % 40 === 0) r.server.step(now);
      for (let g = 0; g < 20 && (r.toS.length || r.toC.length); g++) {
        for (const b of r.toS.splice(0)) r.server.receive(b, now);
        for (const b of r.toC.splice(0)) r.client.receive(b, now);
      }
    }
  }
  for (const r of rigs) r.client.disconnect('done', ms);
  return { frames, seen };
}

/** A record of `decode teeworlds --pcap --format jsonl`, with the fields these tests read. */
interface CaptureRecord {
  [field: string]: unknown;
  record: string;
  direction?: string;
  chunks?: { msg: string; fields: Record<string, unknown> }[];
  control?: { type: string };
  numParts?: number;
}

function summary(r: Record<string, unknown>): string {
  return JSON.stringify({ tick: r.tick, deltaTick: r.deltaTick, crc: r.crc, crcOk: r.crcOk, numParts: r.numParts, numItems: r.numItems, items: r.items });
}

async function cli(args: string[], stdin = new Uint8Array(0)): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  let stdinRead = false;
  const code = await run(args, {
    stdout: { write: (s: string | Uint8Array) => (out += typeof s === 'string' ? s : new TextDecoder().decode(s)) },
    stderr: { write: (s: string) => (err += s) },
    readStdin: () => {
      // Like a real pipe: readable once.
      if (stdinRead) return new Uint8Array(0);
      stdinRead = true;
      return stdin;
    },
  });
  return { code, out, err };
}

const dir = mkdtempSync(join(tmpdir(), 'tickwire-capture-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

for (const [version, ddnet] of [
  ['0.7', false],
  ['0.6', true],
  ['0.6', false],
] as const) {
  test(`capture ${version}${ddnet ? ' + token' : ''}: decode --pcap gives the client's snapshots and both directions`, async () => {
    const { frames, seen } = recordSessions(version, ddnet, 1, 1500, { fillerItems: 120 });
    const file = join(dir, `s-${version}-${ddnet}.pcap`);
    writeFileSync(file, writePcap(frames));
    const { code, out, err } = await cli(['decode', 'teeworlds', '--pcap', file, '--version', version, '--format', 'jsonl']);
    assert.equal(code, 0, err);
    const records = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as CaptureRecord);
    const dgrams = records.filter((r) => r.record === 'datagram');
    assert.equal(dgrams.length, frames.length, 'one record per datagram');
    assert.ok(
      dgrams.every((d) => d.error === undefined),
      JSON.stringify(dgrams.find((d) => d.error)),
    );
    const toServer = dgrams.filter((d) => d.direction === 'client→server');
    const names = new Set(dgrams.flatMap((d) => (d.chunks ?? []).map((c: { msg: string }) => c.msg)));
    for (const n of ['INFO', 'MAP_CHANGE', 'READY', 'CON_READY', 'CL_STARTINFO', 'SV_READYTOENTER', 'ENTERGAME', 'INPUT'])
      assert.ok(names.has(n), `${n} decoded`);
    assert.ok(toServer.length > 10);
    const start = dgrams.flatMap((d) => d.chunks ?? []).find((c: { msg: string }) => c.msg === 'CL_STARTINFO');
    assert.equal(start!.fields.name, 'cap0');
    const input = dgrams.flatMap((d) => d.chunks ?? []).filter((c: { msg: string }) => c.msg === 'INPUT');
    assert.ok(input.some((c) => (c.fields.ackTick as number) > 0));
    assert.ok(dgrams.some((d) => d.control?.type === 'close'));
    const snaps = records.filter((r) => r.record === 'snapshot').map(summary);
    assert.ok(seen[0]!.length > 20);
    assert.ok(
      records.some((r) => r.record === 'snapshot' && r.numParts! > 1),
      'multi-part snapshots in the capture',
    );
    assert.deepEqual(snaps, seen[0]);
    // without --version: detected from the handshake, the same records, each snapshot naming its version
    const auto = await cli(['decode', 'teeworlds', '--pcap', file, '--format', 'jsonl']);
    assert.equal(auto.code, 0, auto.err);
    const autoLines = auto.out.trim().split('\n');
    const outLines = out.trim().split('\n');
    // the first record says what was detected, and that it is sure (the capture has the handshake)
    const first = JSON.parse(autoLines[0]!) as { detectedVersion?: unknown };
    assert.deepEqual(first.detectedVersion, { version: version === '0.7' ? '0.7' : '0.6', sure: true });
    delete first.detectedVersion;
    assert.deepEqual(first, JSON.parse(outLines[0]!));
    assert.deepEqual(autoLines.slice(1), outLines.slice(1));
    assert.ok(records.filter((r) => r.record === 'snapshot').every((r) => r.version === (version === '0.7' ? '0.7' : ddnet ? 'ddnet' : '0.6')));
  });
}

test('capture: three clients in one capture, pcapng and Ethernet framing, mid-connection start', async () => {
  const { frames, seen } = recordSessions('0.6', true, 3, 1200);
  // Ethernet-framed pcap.
  const eth = frames.map((f) => ({ time: f.time, data: new Uint8Array([...new Uint8Array(12), 0x08, 0x00, ...f.data]) }));
  const file = join(dir, 'three.pcap');
  writeFileSync(file, writePcap(eth, LINKTYPE_ETHERNET));
  const { code, out, err } = await cli(['decode', 'teeworlds', '--pcap', file, '--version', '0.6', '--format', 'jsonl']);
  assert.equal(code, 0, err);
  const records = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as CaptureRecord);
  for (let k = 0; k < 3; k++) {
    const mine = records.filter((r) => r.record === 'snapshot' && r.client === `127.0.0.1:${40000 + k}`).map(summary);
    assert.deepEqual(mine, seen[k]);
  }
  // the same frames as pcapng (SHB + IDB (raw IP) + one EPB per frame)
  const viaNg = [...decodeTeeworldsCapture(toPcapng(writePcap(frames)), { version: '0.6' })].flatMap((d) => d.snapshots);
  assert.equal(
    viaNg.length,
    seen.reduce((n, s) => n + s.length, 0),
  );
  // A capture that starts after the handshake: the token is recognised from the chunk layout,
  // and snapshots resume at the first full snapshot... here the client's first snapshot is full,
  // so drop only the handshake datagrams (control packets) of client 0.
  const skip = 4;
  const late = [...decodeTeeworldsCapture(writePcap(frames.slice(skip)), { version: '0.6', server: '127.0.0.1:8303' })];
  assert.ok(late.filter((d) => d.error !== undefined).length === 0, late.find((d) => d.error)?.error);
  assert.ok(late.flatMap((d) => d.snapshots).length > 0);
});

test('capture: --server finds an IPv6 server however its address is spelled (the capture writes RFC 5952 text)', () => {
  // Raw IPv6 + UDP; the payloads need not be Teeworlds packets: each datagram to or from the server is a record.
  const udp6 = (src: number[], srcPort: number, dst: number[], dstPort: number) => {
    const p = new Uint8Array(40 + 8 + 2);
    p[0] = 0x60;
    p[5] = 10;
    p[6] = 17;
    p[7] = 64;
    for (let i = 0; i < 8; i++) {
      p[8 + 2 * i] = src[i]! >> 8;
      p[9 + 2 * i] = src[i]! & 0xff;
      p[24 + 2 * i] = dst[i]! >> 8;
      p[25 + 2 * i] = dst[i]! & 0xff;
    }
    p.set([srcPort >> 8, srcPort & 0xff, dstPort >> 8, dstPort & 0xff, 0, 10, 0, 0, 0x10, 0], 40);
    return p;
  };
  const server = [0x2001, 0, 0, 1, 0, 0, 0, 1];
  const client = [0x2001, 0xdb8, 0, 0, 0, 0, 0, 2];
  const file = writePcap([
    { time: 1, data: udp6(client, 40000, server, 8303) },
    { time: 2, data: udp6(server, 8303, client, 40000) },
  ]);
  for (const given of ['[2001:0:0:1::1]:8303', '[2001:0:0:1:0:0:0:1]:8303', '[2001:0000:0:1::0001]:08303', '[2001:0:0:1::1]:8303'.toUpperCase()]) {
    const ds = [...decodeTeeworldsCapture(file, { version: '0.6', server: given })];
    assert.deepEqual(
      ds.map((d) => [d.direction, d.client]),
      [
        ['client→server', '[2001:db8::2]:40000'],
        ['server→client', '[2001:db8::2]:40000'],
      ],
      given,
    );
  }
  // Another server (or port) still finds nothing.
  assert.equal([...decodeTeeworldsCapture(file, { version: '0.6', server: '[2001:0:0:1::2]:8303' })].length, 0);
  assert.equal([...decodeTeeworldsCapture(file, { version: '0.6', server: '[2001:0:0:1::1]:8304' })].length, 0);
});

test('capture: CLI errors', async () => {
  const notPcap = join(dir, 'junk.bin');
  writeFileSync(notPcap, new Uint8Array([1, 2, 3, 4, 5]));
  const r1 = await cli(['decode', 'teeworlds', '--pcap', notPcap, '--version', '0.7']);
  assert.equal(r1.code, 1);
  assert.match(r1.err, /magic/);
  const r2 = await cli(['decode', 'teeworlds', notPcap, '--pcap', notPcap]);
  assert.equal(r2.code, 2);
  const r3 = await cli(['decode', 'teeworlds', '--pcap', join(dir, 'missing.pcap')]);
  assert.equal(r3.code, 1);
  assert.match(r3.err, /cannot read/);
  // watch: bad arguments are rejected before any socket is opened.
  const w1 = await cli(['watch', 'teeworlds', 'nohost', '--version', '0.7']);
  assert.equal(w1.code, 1);
  assert.match(w1.err, /TARGET: expected HOST:PORT/);
  // (a bad option value is a usage error: exit 2, as the README says)
  const w2 = await cli(['watch', 'teeworlds', '127.0.0.1:8303', '--seconds=0']);
  assert.equal(w2.code, 2);
  assert.match(w2.err, /--seconds/);
  const w3 = await cli(['watch', 'teeworlds']);
  assert.equal(w3.code, 2);
});

test('CLI: with --pcap support, snapshot streams still decode from stdin, files and directories', async () => {
  // Two snapshot messages (0.7): the full snapshot of reference §16.1 and a SNAPEMPTY against it.
  const lines = '11900191019024290006000401b001b003010402b001b0040104049004b00603040a9002b00a0206000001000b00080000\n0f940104\n';
  const viaStdin = await cli(['decode', 'teeworlds', '--version', '0.7', '--stream', '--format', 'jsonl'], new TextEncoder().encode(lines));
  assert.equal(viaStdin.code, 0, viaStdin.err);
  const recs = viaStdin.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(recs.length, 2);
  assert.deepEqual([recs[0].tick, recs[0].crc, recs[0].crcOk, recs[1].tick, recs[1].deltaTick], [80, 2320, true, 84, 80]);
  const file = join(dir, 'two.hex');
  writeFileSync(file, lines);
  const viaFile = await cli(['decode', 'teeworlds', file, '--version', '0.7', '--stream', '--format', 'jsonl']);
  assert.equal(viaFile.out, viaStdin.out);
  const d = join(dir, 'msgs');
  mkdirSync(d);
  writeFileSync(join(d, '0.bin'), fromHex(lines.split('\n')[0]!));
  writeFileSync(join(d, '1.bin'), fromHex(lines.split('\n')[1]!));
  const viaDir = await cli(['decode', 'teeworlds', d, '--version', '0.7', '--stream', '--format', 'jsonl']);
  assert.equal(viaDir.code, 0, viaDir.err);
  assert.equal(viaDir.out, viaStdin.out);
});

test('fuzz: capture decoding yields records or a DecodeError for mutated captures', () => {
  const { frames } = recordSessions('0.7', false, 1, 400);
  const file = writePcap(frames);
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: file.length - 1 }),
      fc.integer({ min: 0, max: 255 }),
      fc.boolean(),
      fc.constantFrom<NetVersion>('0.6', '0.7'),
      (pos, v, cut, version) => {
        const b = file.slice();
        if (!cut) b[pos] = v;
        const input = cut ? b.subarray(0, pos) : b;
        try {
          for (const d of decodeTeeworldsCapture(input, { version })) assert.ok(typeof d.frame === 'number');
        } catch (e) {
          if (!(e instanceof DecodeError)) throw e;
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('capture without --version and without a handshake it can tell by: the first record says which version was assumed and why', async () => {
  // datagrams of bytes neither version reads as Teeworlds (random payloads to and from port 8303)
  const frames = [];
  for (let i = 0; i < 12; i++) {
    const payload = Uint8Array.from({ length: 24 }, (_, k) => (i * 37 + k * 11 + 0x5a) & 0xff);
    frames.push({
      time: i,
      data: buildUdpIpv4(i % 2 ? '127.0.0.1' : '127.0.0.2', i % 2 ? 8303 : 50000, i % 2 ? '127.0.0.2' : '127.0.0.1', i % 2 ? 50000 : 8303, payload),
    });
  }
  const file = join(dir, 'no-handshake.pcap');
  writeFileSync(file, writePcap(frames));
  const r = await cli(['decode', 'teeworlds', '--pcap', file, '--format', 'jsonl']);
  assert.equal(r.code, 0, r.err);
  const first = JSON.parse(r.out.trim().split('\n')[0]!) as { detectedVersion?: { version: string; sure: boolean; why?: string } };
  assert.equal(first.detectedVersion?.sure, false, JSON.stringify(first.detectedVersion));
  assert.match(first.detectedVersion!.why!, /assumed \(give --version\)$/);
  assert.equal(first.detectedVersion!.version, '0.6');
  // given --version, nothing is detected and nothing said
  const given = await cli(['decode', 'teeworlds', '--pcap', file, '--version', '0.7', '--format', 'jsonl']);
  assert.equal(given.code, 0, given.err);
  assert.equal((JSON.parse(given.out.trim().split('\n')[0]!) as { detectedVersion?: unknown }).detectedVersion, undefined);
});
