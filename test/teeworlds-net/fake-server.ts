/**
 * A small fake Teeworlds / DDNet server for tests: handshake (0.7 tokens or
 * 0.6 with DDNet's security token), the join messages, and snapshots built from
 * a few items with deltas against the client's acknowledged tick. Hooks let a
 * test make it misbehave. Transport-free: datagrams out through `send`.
 */
import {
  controlPayload,
  createDeltaBytes,
  CTRL_CONNECTACCEPT,
  CTRL_TOKEN,
  DDNET_TKEN,
  decodeControl,
  decodePacket,
  encodePacket,
  encodeSnapshotMessages,
  IDS_06,
  IDS_07,
  MsgReader,
  MsgWriter,
  msgHeader,
  NetConn,
  readMsgHeader,
  Snapshot,
  SnapshotBuilder,
  STATIC_SIZES,
  strToInts,
  type NetVersion,
  type TwVersion,
} from '../../src/protocols/teeworlds/index.js';

export interface FakeServerOptions {
  version: NetVersion;
  /** 0.6: DDNet security token handshake. */
  ddnet?: boolean;
  /** Part size for slicing (default 900). */
  partSize?: number;
  /** Extra items per snapshot (to force multi-part snapshots). */
  fillerItems?: number;
}

const SERVER_TOKEN = 0x5eed1234;
const SECURITY_TOKEN = 0x0a7d36cf;

export class FakeServer {
  readonly version: NetVersion;
  readonly codec: TwVersion;
  readonly conn: NetConn;
  state: 'waiting' | 'connected' | 'ingame' = 'waiting';
  clientToken = 0;
  playerName = '';
  startInfo: { clan: string; country: number; skins: string[] } | undefined;
  ackTick = -1;
  acks: number[] = [];
  tick = 100;
  readonly sent = new Map<number, Snapshot>();
  /** Ticks whose snapshot goes out with a wrong CRC. */
  readonly wrongCrc = new Set<number>();
  /** Ticks whose snapshot parts are sent in reverse order. */
  readonly reverseParts = new Set<number>();
  readonly partSize: number;
  /** Projectiles in each snapshot (ids 100 on); change it to add or remove some. */
  filler: number;
  readonly ddnet: boolean;
  received = 0;
  /** The system messages received, in order (`info`, `uuid:<uuid>` for an extended one, else `sys:<id>`). */
  readonly sysSeen: string[] = [];
  /** When each INPUT arrived (ms). */
  readonly inputsAt: number[] = [];

  constructor(
    opts: FakeServerOptions,
    readonly send: (b: Uint8Array) => void,
  ) {
    this.version = opts.version;
    this.ddnet = opts.ddnet ?? false;
    this.codec = this.version === '0.7' ? '0.7' : this.ddnet ? 'ddnet' : '0.6';
    this.conn = new NetConn({ version: this.version, send, timeoutMs: 60000 });
    this.partSize = opts.partSize ?? 900;
    this.filler = opts.fillerItems ?? 0;
  }

  private get ids() {
    return this.version === '0.7' ? IDS_07 : IDS_06;
  }

  receive(bytes: Uint8Array, now: number): void {
    this.received++;
    const secTok = this.version === '0.6' && this.ddnet && this.state !== 'waiting';
    const pk = decodePacket(bytes, { version: this.version, securityToken: secTok });
    if (pk.control) {
      const c = decodeControl(pk.payload, this.version);
      if (this.version === '0.7') {
        if (c.type === 'token') {
          this.clientToken = c.token!;
          const reply = new Uint8Array(4);
          new DataView(reply.buffer).setUint32(0, SERVER_TOKEN);
          this.send(
            encodePacket(
              {
                connless: false,
                control: true,
                resend: false,
                compression: false,
                ack: 0,
                numChunks: 0,
                token: this.clientToken,
                payload: controlPayload(CTRL_TOKEN, reply),
              },
              { version: '0.7' },
            ),
          );
        } else if (c.type === 'connect' && pk.token === SERVER_TOKEN) {
          this.conn.reset(now);
          this.conn.peerToken = this.clientToken;
          this.conn.sendControl(CTRL_CONNECTACCEPT, undefined, now);
          this.state = 'connected';
        }
      } else if (c.type === 'connect') {
        this.conn.reset(now);
        if (this.ddnet) {
          this.conn.securityToken = SECURITY_TOKEN;
          this.conn.sendControl(CTRL_CONNECTACCEPT, DDNET_TKEN, now);
        } else this.conn.sendControl(CTRL_CONNECTACCEPT, undefined, now);
        this.state = 'connected';
      }
      return;
    }
    if (this.state === 'waiting') return;
    for (const ch of this.conn.receive(pk, now)) this.onMessage(ch.data, now);
  }

  private onMessage(data: Uint8Array, now: number): void {
    const r = new MsgReader(data);
    const h = readMsgHeader(r);
    const ids = this.ids;
    if (h.system) this.sysSeen.push(h.id === 0 && h.uuid !== undefined ? `uuid:${h.uuid}` : h.id === ids.info ? 'info' : `sys:${h.id}`);
    if (h.system && h.id === ids.input) this.inputsAt.push(now);
    if (h.system && h.id === ids.info) {
      const w = msgHeader(new MsgWriter(), true, ids.mapChange).str('dm1').int(0x1234).int(5000);
      if (this.version === '0.7') w.int(1).int(1024).raw(new Uint8Array(32));
      this.conn.queue(w.finish(), true, now);
      this.conn.flush(now);
    } else if (h.system && h.id === ids.ready) {
      this.conn.queue(msgHeader(new MsgWriter(), true, ids.conReady).finish(), true, now);
      this.conn.flush(now);
    } else if (!h.system && h.id === ids.gameStartInfo) {
      this.playerName = r.str();
      this.startInfo = { clan: r.str(), country: r.int(), skins: [] };
      for (let i = 0; i < (this.version === '0.7' ? 6 : 1); i++) this.startInfo.skins.push(r.str());
      this.conn.queue(msgHeader(new MsgWriter(), false, ids.gameReadyToEnter).finish(), true, now);
      this.conn.flush(now);
    } else if (h.system && h.id === ids.enterGame) {
      this.state = 'ingame';
      if (this.version === '0.7') {
        // SV_CLIENTINFO for the joining player.
        const w = msgHeader(new MsgWriter(), false, ids.gameClientInfo).int(0).int(1).int(0).str(this.playerName).str('').int(-1);
        for (let i = 0; i < 6; i++) w.str('standard');
        for (let i = 0; i < 12; i++) w.int(0);
        w.int(0);
        this.conn.queue(w.finish(), true, now);
        this.conn.flush(now);
      }
    } else if (h.system && h.id === ids.input) {
      this.ackTick = r.int();
      this.acks.push(this.ackTick);
    }
  }

  /** The snapshot of a tick. */
  build(tick: number): Snapshot {
    const b = new SnapshotBuilder();
    if (this.version === '0.7') {
      b.add(6, 0, [0, 1, 0]); // GameData
      b.add(11, 0, [8, 3, 0]); // PlayerInfo
      b.add(
        10,
        0,
        Array.from({ length: 22 }, (_, i) => (i === 0 ? tick : i === 1 ? 100 + tick : 0)),
      ); // Character
    } else {
      b.add(6, 0, [0, 0, 50, 0, 20, 0, 1, 1]); // GameInfo
      b.add(11, 0, [...strToInts(this.playerName, 4), ...strToInts('', 3), -1, ...strToInts('default', 6), 0, 65408, 65408]); // ClientInfo
      b.add(10, 0, [1, 0, 0, 3, 0]); // PlayerInfo
      b.add(
        9,
        0,
        Array.from({ length: 22 }, (_, i) => (i === 0 ? tick : i === 1 ? 100 + tick : 0)),
      ); // Character
    }
    for (let i = 0; i < this.filler; i++) b.add(2, 100 + i, [i * 7919 + tick, i, 3, 4, 1, 1000 + i]); // Projectiles
    return b.finish();
  }

  /** Advance two ticks and send the snapshot (when in game). */
  step(now: number): void {
    this.tick += 2;
    if (this.state !== 'ingame') return;
    const snap = this.build(this.tick);
    this.sent.set(this.tick, snap);
    for (const t of this.sent.keys()) if (t < this.tick - 150) this.sent.delete(t);
    const base = this.sent.get(this.ackTick);
    const deltaTick = base === undefined ? -1 : this.ackTick;
    const delta = createDeltaBytes(base ?? Snapshot.EMPTY, snap, STATIC_SIZES[this.codec]);
    let crc = snap.crc();
    if (this.wrongCrc.has(this.tick)) crc = (crc + 1) | 0;
    let msgs = encodeSnapshotMessages(this.codec, this.tick, deltaTick, crc, delta, { partSize: this.partSize });
    if (this.reverseParts.has(this.tick)) msgs = msgs.reverse();
    for (const m of msgs) {
      this.conn.queue(m, false, now);
      this.conn.flush(now);
    }
  }

  /** Send a packet with the given chunks payload raw (for misbehaviour tests). */
  rawPacket(payload: Uint8Array, numChunks: number, opts: { token?: number; securityToken?: number } = {}): Uint8Array {
    return encodePacket(
      {
        connless: false,
        control: false,
        resend: false,
        compression: false,
        ack: this.conn.ack,
        numChunks,
        token: opts.token ?? this.clientToken,
        securityToken: opts.securityToken ?? SECURITY_TOKEN,
        payload,
      },
      { version: this.version, securityToken: this.version === '0.6' && this.ddnet },
    );
  }
}
