/**
 * The WoW 1.12 world packet header cipher.
 *
 * After authentication both sides "encrypt" only the header of every world
 * packet with the 40-byte session key K of the SRP6 login: each header byte is
 * XORed with the key byte at a rolling index, then the previous *encrypted*
 * byte is added (mod 256):
 *
 *     e = (p XOR K[i]) + e_prev        p = (e - e_prev) XOR K[i]
 *
 * `i` runs over 0..39 and wraps; `i` and `e_prev` (0 at the start) carry from
 * one header to the next. Each direction has its own state. Server headers are
 * 4 bytes (`u16` BE size, `u16` LE opcode), client headers 6 (`u16` BE size,
 * `u32` LE opcode). The server's first packet (SMSG_AUTH_CHALLENGE) and the
 * client's first (CMSG_AUTH_SESSION) are plain; everything after is
 * enciphered. The payload is never touched.
 *
 * Facts checked against cmangos mangos-classic (`AuthCrypt.cpp`, `WorldSocket.cpp`).
 * The key bytes are the session key as a little-endian number; MaNGOS servers
 * keep it as big-endian hex in `account.sessionkey`, hence `sessionKeyFromHex`.
 */
import { EncodeError } from '../../core/errors.js';

export const SESSION_KEY_LENGTH = 40;
export const SERVER_HEADER_LENGTH = 4;
export const CLIENT_HEADER_LENGTH = 6;

export const SMSG_AUTH_CHALLENGE = 0x1ec;
export const CMSG_AUTH_SESSION = 0x1ed;
export const SMSG_AUTH_RESPONSE = 0x1ee;

/** One direction of the header cipher: the key, the rolling index and the last encrypted byte. */
export class HeaderCipher {
  /** Index of the key byte the next header byte uses (0..39). */
  index = 0;
  /** The last encrypted header byte (0 before the first). */
  last = 0;
  readonly key: Uint8Array;

  constructor(key: Uint8Array) {
    if (key.length !== SESSION_KEY_LENGTH) throw new RangeError(`a session key is ${SESSION_KEY_LENGTH} bytes, got ${key.length}`);
    this.key = key.slice();
  }

  /** Encrypt `n` header bytes of `buf` at `at`, in place. */
  encrypt(buf: Uint8Array, at = 0, n = buf.length - at): void {
    const k = this.key;
    let i = this.index;
    let j = this.last;
    for (let t = at; t < at + n; t++) {
      j = ((buf[t]! ^ k[i]!) + j) & 0xff;
      buf[t] = j;
      if (++i === SESSION_KEY_LENGTH) i = 0;
    }
    this.index = i;
    this.last = j;
  }

  /** Decrypt `n` header bytes of `buf` at `at`, in place. */
  decrypt(buf: Uint8Array, at = 0, n = buf.length - at): void {
    const k = this.key;
    let i = this.index;
    let j = this.last;
    for (let t = at; t < at + n; t++) {
      const e = buf[t]!;
      buf[t] = ((e - j) & 0xff) ^ k[i]!;
      j = e;
      if (++i === SESSION_KEY_LENGTH) i = 0;
    }
    this.index = i;
    this.last = j;
  }

  clone(): HeaderCipher {
    const c = new HeaderCipher(this.key);
    c.index = this.index;
    c.last = this.last;
    return c;
  }
}

/** Both directions of a world connection. */
export class WorldCrypt {
  /** Server → client headers (4 bytes). */
  readonly server: HeaderCipher;
  /** Client → server headers (6 bytes). */
  readonly client: HeaderCipher;
  constructor(key: Uint8Array) {
    this.server = new HeaderCipher(key);
    this.client = new HeaderCipher(key);
  }

  /** Encrypt the header of one whole server frame in place (returns it). */
  encryptServerFrame(frame: Uint8Array): Uint8Array {
    if (frame.length < SERVER_HEADER_LENGTH) throw new EncodeError('', `a server frame has at least ${SERVER_HEADER_LENGTH} bytes, got ${frame.length}`);
    this.server.encrypt(frame, 0, SERVER_HEADER_LENGTH);
    return frame;
  }

  decryptServerHeader(buf: Uint8Array, at = 0): void {
    this.server.decrypt(buf, at, SERVER_HEADER_LENGTH);
  }

  encryptClientFrame(frame: Uint8Array): Uint8Array {
    if (frame.length < CLIENT_HEADER_LENGTH) throw new EncodeError('', `a client frame has at least ${CLIENT_HEADER_LENGTH} bytes, got ${frame.length}`);
    this.client.encrypt(frame, 0, CLIENT_HEADER_LENGTH);
    return frame;
  }

  decryptClientHeader(buf: Uint8Array, at = 0): void {
    this.client.decrypt(buf, at, CLIENT_HEADER_LENGTH);
  }
}

/**
 * The 40 key bytes from hex. `db` (the default): the number as MaNGOS stores it
 * in `account.sessionkey` (big-endian hex, leading zeros possibly dropped);
 * `bytes`: the 40 bytes in the order the cipher uses them.
 */
export function sessionKeyFromHex(hex: string, order: 'db' | 'bytes' = 'db'): Uint8Array {
  const h = hex.trim().replace(/^0x/i, '').replace(/[\s:]/g, '');
  if (!/^[0-9a-fA-F]*$/.test(h) || h.length === 0) throw new EncodeError('session-key', 'expected hex digits');
  if (order === 'bytes') {
    if (h.length !== 2 * SESSION_KEY_LENGTH) throw new EncodeError('session-key', `expected ${2 * SESSION_KEY_LENGTH} hex digits (40 bytes), got ${h.length}`);
    const out = new Uint8Array(SESSION_KEY_LENGTH);
    for (let i = 0; i < SESSION_KEY_LENGTH; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
    return out;
  }
  if (h.length > 2 * SESSION_KEY_LENGTH)
    throw new EncodeError('session-key', `expected at most ${2 * SESSION_KEY_LENGTH} hex digits (a 320-bit number), got ${h.length}`);
  const full = h.padStart(2 * SESSION_KEY_LENGTH, '0');
  const out = new Uint8Array(SESSION_KEY_LENGTH);
  // Big-endian text, little-endian bytes.
  for (let i = 0; i < SESSION_KEY_LENGTH; i++) out[SESSION_KEY_LENGTH - 1 - i] = parseInt(full.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The `account.sessionkey` text of key bytes (inverse of `sessionKeyFromHex(.., 'db')`). */
export function sessionKeyToDbHex(key: Uint8Array): string {
  let s = '';
  for (let i = key.length - 1; i >= 0; i--) s += key[i]!.toString(16).padStart(2, '0');
  return s.toUpperCase();
}

/** A client frame: `u16` BE size (payload + 4), `u32` LE opcode, payload. */
export function clientFrame(opcode: number, payload: Uint8Array): Uint8Array {
  if (payload.length + 4 > 0xffff) throw new EncodeError('', `payload of ${payload.length} bytes does not fit a client frame`);
  const out = new Uint8Array(6 + payload.length);
  out[0] = ((payload.length + 4) >> 8) & 0xff;
  out[1] = (payload.length + 4) & 0xff;
  new DataView(out.buffer).setUint32(2, opcode >>> 0, true);
  out.set(payload, 6);
  return out;
}

/**
 * Wire bytes of a server stream: the frames (whole plaintext server frames, e.g.
 * from `frame` / `buildUpdate`) concatenated, the first `plain` of them
 * (SMSG_AUTH_CHALLENGE: 1) left plain and every later header enciphered.
 * The frames given are not changed.
 */
export function encryptServerStream(frames: readonly Uint8Array[], key: Uint8Array, plain = 1, cipher = new HeaderCipher(key)): Uint8Array[] {
  return frames.map((f, i) => {
    const c = f.slice();
    if (i >= plain) {
      if (c.length < SERVER_HEADER_LENGTH) throw new EncodeError(`frames[${i}]`, 'a server frame has at least 4 bytes');
      cipher.encrypt(c, 0, SERVER_HEADER_LENGTH);
    }
    return c;
  });
}

/** Same as `encryptServerStream` for client frames (6-byte headers; CMSG_AUTH_SESSION plain). */
export function encryptClientStream(frames: readonly Uint8Array[], key: Uint8Array, plain = 1, cipher = new HeaderCipher(key)): Uint8Array[] {
  return frames.map((f, i) => {
    const c = f.slice();
    if (i >= plain) {
      if (c.length < CLIENT_HEADER_LENGTH) throw new EncodeError(`frames[${i}]`, 'a client frame has at least 6 bytes');
      cipher.encrypt(c, 0, CLIENT_HEADER_LENGTH);
    }
    return c;
  });
}
