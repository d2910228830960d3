/**
 * Synthetic WoW 1.12.1 world sessions written by our own encoder: a world built
 * with `buildUpdate` (plus the real BloogBot frames and the wow_messages
 * vectors when asked), other opcodes as opaque frames, headers enciphered with
 * a session key, both directions cut into TCP segments at random, with
 * retransmissions, reordering and loss, written as a pcap.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromHex } from '../../src/core/hex.js';
import { writePcap } from '../../src/core/pcap.js';
import { buildTcpPacket, TCP_ACK, TCP_FIN, TCP_PSH, TCP_SYN } from '../../src/core/tcp.js';
import { buildDestroy, buildUpdate, frame, makeWorldObject, newObserver, setField, type WorldObject } from '../../src/protocols/wow/index.js';
import { clientFrame, encryptClientStream, encryptServerStream, HeaderCipher } from '../../src/protocols/wow/cipher.js';
import { rng } from '../helpers/rng.js';

export const FIXTURES = join(new URL('.', import.meta.url).pathname, '..', 'fixtures', 'wow');

/** The 88 real frames of the BloogBot session (plaintext headers). */
export function realFrames(): Uint8Array[] {
  return readFileSync(join(FIXTURES, 'real', 'bloogbot_20240815_session.frames.hex'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map(fromHex);
}

/** The three wow_messages vectors (whole frames). */
export function vectorFrames(): Uint8Array[] {
  return [
    'smsg_update_object_1_12_test0_minimal_player_create2',
    'smsg_update_object_1_12_test1_player_create2_more_fields',
    'smsg_compressed_update_object_1_12_test0_four_transports',
  ].map((n) => fromHex(readFileSync(join(FIXTURES, `${n}.full.hex`), 'utf8').trim()));
}

export interface SynthOptions {
  seed: number;
  /** Number of world ticks (each: an update, some opaque server frames, some client frames). */
  ticks?: number;
  /** Put the 88 real frames and the 3 vectors into the server stream. */
  real?: boolean;
  /** Chance a segment is sent twice. */
  retransmit?: number;
  /** Chance two neighbouring segments swap. */
  reorder?: number;
  /** Chance a segment is never captured (after the first few). */
  loss?: number;
  /** Chance two sends of one side go out in one segment train (coalesced). */
  coalesce?: number;
  /** Largest segment payload (a random MSS per send up to this). */
  mss?: number;
  /** Drop the client direction from the capture. */
  serverOnly?: boolean;
  ipv6?: boolean;
  /** Capture starts after this many server sends (no handshake in the file). */
  startAfter?: number;
}

export interface SynthSession {
  key: Uint8Array;
  /** Plain frames in send order, per direction. */
  server: Uint8Array[];
  client: Uint8Array[];
  /** Stream offsets of each frame. */
  serverOffsets: number[];
  clientOffsets: number[];
  pcap: Uint8Array;
  /** Stream byte ranges never captured, per direction. */
  lost: { server: [number, number][]; client: [number, number][] };
  serverPort: number;
}

const OPAQUE_SERVER = [
  0x0dd /* SMSG_MONSTER_MOVE */, 0x0ee /* MSG_MOVE_HEARTBEAT */, 0x096 /* SMSG_MESSAGECHAT */, 0x131 /* SMSG_ATTACKERSTATEUPDATE */, 0x1dd /* SMSG_PONG */,
  0x2b0 /* SMSG_... */,
];
const OPAQUE_CLIENT = [
  0x0b5 /* MSG_MOVE_START_FORWARD */, 0x0b7 /* MSG_MOVE_STOP */, 0x0ee /* MSG_MOVE_HEARTBEAT */, 0x050 /* CMSG_NAME_QUERY */, 0x1dc /* CMSG_PING */,
  0x095 /* CMSG_MESSAGECHAT */,
];

export function synthSession(o: SynthOptions): SynthSession {
  const r = rng(o.seed);
  const ri = (n: number) => Math.floor(r() * n);
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => ri(256));
  const key = bytes(40);
  const ticks = o.ticks ?? 30;

  // --- the plaintext frames, as sends (a send is one or more frames written at once)
  type Send = { server: boolean; frames: Uint8Array[] };
  const sends: Send[] = [];
  const srv = (...f: Uint8Array[]) => sends.push({ server: true, frames: f });
  const cli = (...f: Uint8Array[]) => sends.push({ server: false, frames: f });
  srv(frame(0x1ec, bytes(4))); // SMSG_AUTH_CHALLENGE: plain
  cli(clientFrame(0x1ed, bytes(30 + ri(20)))); // CMSG_AUTH_SESSION: plain
  srv(frame(0x1ee, Uint8Array.of(0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0))); // SMSG_AUTH_RESPONSE AUTH_OK
  cli(clientFrame(0x037, new Uint8Array(0))); // CMSG_CHAR_ENUM
  srv(frame(0x03b, bytes(1 + ri(200)))); // SMSG_CHAR_ENUM
  cli(clientFrame(0x03d, bytes(8))); // CMSG_PLAYER_LOGIN

  const me = makeWorldObject(7n, 4, { UNIT_FIELD_HEALTH: 100, UNIT_FIELD_MAXHEALTH: 100, UNIT_FIELD_LEVEL: 10 });
  const obs = newObserver(7n);
  const world: WorldObject[] = [me];
  for (let i = 0; i < 12; i++)
    world.push(makeWorldObject(0xf130000100000000n + BigInt(i + 1), 3, { UNIT_FIELD_HEALTH: 50 + i, UNIT_FIELD_MAXHEALTH: 100, UNIT_FIELD_LEVEL: 1 + i }));
  const real = o.real ? [...vectorFrames(), ...realFrames()] : [];
  let realAt = 0;
  for (let t = 0; t < ticks; t++) {
    // world changes
    for (const w of world) if (w !== me && r() < 0.4) setField(w.values, 3, 'UNIT_FIELD_HEALTH', ri(100));
    let visible = world.filter((_w, i) => i === 0 || (i + t) % 5 !== 0);
    const out = buildUpdate(obs, visible);
    const batch: Uint8Array[] = [...out.packets];
    if (t % 7 === 3) {
      const gone = visible[visible.length - 1]!;
      batch.push(buildDestroy(obs, gone.guid));
      visible = visible.slice(0, -1);
    }
    if (realAt < real.length) batch.push(...real.slice(realAt, (realAt += 1 + ri(5))));
    for (let k = ri(3); k > 0; k--) batch.push(frame(OPAQUE_SERVER[ri(OPAQUE_SERVER.length)]!, bytes(ri(60))));
    // one send per frame, or a few frames per send
    for (let i = 0; i < batch.length; ) {
      const n = 1 + (r() < (o.coalesce ?? 0.2) ? ri(3) : 0);
      srv(...batch.slice(i, i + n));
      i += n;
    }
    for (let k = 1 + ri(2); k > 0; k--) cli(clientFrame(OPAQUE_CLIENT[ri(OPAQUE_CLIENT.length)]!, bytes(ri(40))));
  }
  while (realAt < real.length) srv(...real.slice(realAt, (realAt += 3)));

  // --- encipher (the first frame of each direction stays plain)
  const sc = new HeaderCipher(key);
  const cc = new HeaderCipher(key);
  const server: Uint8Array[] = [];
  const client: Uint8Array[] = [];
  const wire: { server: boolean; bytes: Uint8Array }[] = [];
  for (const s of sends) {
    const list = s.server ? server : client;
    const enc = s.server
      ? encryptServerStream(s.frames, key, list.length === 0 ? 1 : 0, sc)
      : encryptClientStream(s.frames, key, list.length === 0 ? 1 : 0, cc);
    list.push(...s.frames);
    const all = new Uint8Array(enc.reduce((n, f) => n + f.length, 0));
    let at = 0;
    for (const f of enc) {
      all.set(f, at);
      at += f.length;
    }
    wire.push({ server: s.server, bytes: all });
  }
  const offsets = (fs: Uint8Array[]) => {
    const out: number[] = [];
    let at = 0;
    for (const f of fs) {
      out.push(at);
      at += f.length;
    }
    return out;
  };

  // --- segments
  const cAddr = o.ipv6 ? 'fd00::1' : '10.0.0.1';
  const sAddr = o.ipv6 ? 'fd00::2' : '10.0.0.2';
  const cPort = 40000 + ri(20000);
  const sPort = 8085;
  const cIsn = Math.floor(r() * 2 ** 32);
  const sIsn = Math.floor(r() * 2 ** 32);
  let cOff = 0;
  let sOff = 0;
  type Seg = { server: boolean; off: number; data: Uint8Array; flags: number };
  const segs: Seg[] = [];
  for (const w of wire) {
    const mss = 64 + ri((o.mss ?? 1460) - 63);
    for (let at = 0; at < w.bytes.length; at += mss) {
      const data = w.bytes.subarray(at, Math.min(w.bytes.length, at + mss));
      segs.push({ server: w.server, off: w.server ? sOff : cOff, data, flags: TCP_ACK | TCP_PSH });
      if (w.server) sOff += data.length;
      else cOff += data.length;
    }
  }
  // impairments
  const lost = { server: [] as [number, number][], client: [] as [number, number][] };
  const sent: Seg[] = [];
  let serverSends = 0;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    if (s.server) serverSends++;
    const early = i < 8;
    if (!early && r() < (o.loss ?? 0)) {
      (s.server ? lost.server : lost.client).push([s.off, s.off + s.data.length]);
      continue;
    }
    if (o.startAfter !== undefined && s.server && serverSends <= o.startAfter) {
      lost.server.push([s.off, s.off + s.data.length]);
      continue;
    }
    if (o.serverOnly && !s.server) continue;
    sent.push(s);
    if (r() < (o.retransmit ?? 0)) sent.push(s);
  }
  for (let i = sent.length - 1; i > 0; i--) {
    if (r() < (o.reorder ?? 0)) {
      const t = sent[i]!;
      sent[i] = sent[i - 1]!;
      sent[i - 1] = t;
    }
  }
  const pkt = (server: boolean, seq: number, flags: number, data?: Uint8Array) =>
    buildTcpPacket(
      server
        ? { src: sAddr, srcPort: sPort, dst: cAddr, dstPort: cPort, seq: seq >>> 0, ack: 0, flags, ...(data ? { payload: data } : {}) }
        : { src: cAddr, srcPort: cPort, dst: sAddr, dstPort: sPort, seq: seq >>> 0, ack: 0, flags, ...(data ? { payload: data } : {}) },
    );
  const frames: { time: number; data: Uint8Array }[] = [];
  let time = 1_700_000_000;
  const push = (data: Uint8Array) => frames.push({ time: (time += 0.001), data });
  if (o.startAfter === undefined) {
    push(pkt(false, cIsn, TCP_SYN));
    push(pkt(true, sIsn, TCP_SYN | TCP_ACK));
    push(pkt(false, cIsn + 1, TCP_ACK));
  }
  for (const s of sent) push(pkt(s.server, (s.server ? sIsn : cIsn) + 1 + s.off, s.flags, s.data));
  push(pkt(true, sIsn + 1 + sOff, TCP_FIN | TCP_ACK));
  if (!o.serverOnly) push(pkt(false, cIsn + 1 + cOff, TCP_FIN | TCP_ACK));
  return { key, server, client, serverOffsets: offsets(server), clientOffsets: offsets(client), pcap: writePcap(frames), lost, serverPort: sPort };
}
