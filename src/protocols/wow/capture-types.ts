/** Types and constants of the WoW capture reader (capture.ts). */
import type { CaptureOptions } from '../../core/pcap.js';
import type { TcpLimits } from '../../core/tcp.js';
import { SESSION_KEY_LENGTH } from './cipher.js';

export const KEY_LEN = SESSION_KEY_LENGTH;
export const SMSG_UPDATE_OBJECT = 0x0a9;
export const SMSG_COMPRESSED_UPDATE_OBJECT = 0x1f6;
/** The client header sizes MaNGOS accepts: 4 (opcode only) to 0x2800. */
export const CLIENT_MAX_SIZE = 0x2800;

export type WowDirection = 'server' | 'client';

export interface WowCaptureOptions {
  /** The 40 key bytes in cipher order (see `sessionKeyFromHex`); without it the key is recovered. */
  sessionKey?: Uint8Array;
  /** Follow only connections with this server port. */
  serverPort?: number;
  /** Limits of the TCP reassembler. */
  tcp?: Partial<TcpLimits>;
  /** Limits of the capture reader. */
  capture?: CaptureOptions;
  /** Most world connections decoded (default 64); further ones are reported and skipped. */
  maxConnections?: number;
}

/** Kinds of evidence for recovered key bytes. */
export type KeyEvidence = 'client-opcode-high' | 'auth-response' | 'update-payload' | 'segment-end' | 'client-segment-end';

export interface WowKeyReport {
  kind: 'key';
  conn: number;
  source: 'given' | 'recovered';
  /** Key bytes known (0..40). */
  known: number;
  /** The key bytes in cipher order, null where unknown. */
  key: (number | null)[];
  /** Per evidence kind: how many key-byte observations it gave that agree with the final key. */
  evidence: Partial<Record<KeyEvidence, number>>;
  /** Observations that disagreed with the final key (wrong hypotheses). */
  conflicts: number;
  /** Enciphered frames read with this key, both directions. */
  frames: number;
  /** Of those, frames whose opcode could not be read or is not one of its direction (a sign of missing or wrong key bytes). */
  badOpcodes: number;
}

export interface WowFrame {
  kind: 'frame';
  conn: number;
  direction: WowDirection;
  /** Number of the frame in its direction (the plain first frame is 0). */
  index: number;
  /** Stream offset of the header. */
  offset: number;
  /** The header's size field (server: payload + 2; client: payload + 4). */
  size: number;
  /** Undefined when the opcode bytes could not be decrypted. */
  opcode: number | undefined;
  name: string;
  /** `plain` (handshake), `key` (decrypted), `inferred` (framed by a segment end, header key partly unknown). */
  header: 'plain' | 'key' | 'inferred';
  /** The frame with its header decrypted (undecryptable header bytes left as on the wire). */
  bytes: Uint8Array;
  /** False when part of the payload fell into a capture gap (those bytes are zero). */
  complete: boolean;
  /** Capture frame index and time of the frame's last byte. */
  pcapFrame: number;
  time: number;
}

export interface WowGap {
  kind: 'gap';
  conn: number;
  direction: WowDirection;
  offset: number;
  length: number;
  reason: 'lost' | 'overflow';
  pcapFrame: number;
  time: number;
}

/** Bytes that could not be framed (after a gap, or without key bytes); decoding resumes at `offset + length`. */
export interface WowSkip {
  kind: 'skip';
  conn: number;
  direction: WowDirection;
  offset: number;
  length: number;
  reason: string;
  pcapFrame: number;
  time: number;
}

export interface WowConnectionInfo {
  kind: 'connection';
  conn: number;
  client: string;
  server: string;
  /** True when the plain handshake frames (SMSG_AUTH_CHALLENGE / CMSG_AUTH_SESSION) were seen. */
  handshake: boolean;
  /** False for a connection that is not a WoW world connection (skipped). */
  world: boolean;
  note?: string;
  pcapFrame: number;
  time: number;
}

export type WowCaptureEvent = WowConnectionInfo | WowKeyReport | WowFrame | WowGap | WowSkip;
