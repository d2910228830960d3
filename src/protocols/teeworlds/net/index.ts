/**
 * Teeworlds / DDNet network layer: Huffman, packet headers (0.6, 0.6 + DDNet
 * security token, 0.7 tokens), chunks, the reliable connection, the game
 * client (transport-free) and capture decoding. Browser-safe: the UDP transport
 * lives in `./udp.ts`, which nothing here imports (load it with `import()`).
 */
export { huffmanCompress, huffmanDecompress, huffmanCode, HUFFMAN_EOF } from './huffman.js';
export {
  type NetVersion,
  type NetPacket,
  type PacketOptions,
  type NetChunk,
  type ControlType,
  type ControlMessage,
  decodePacket,
  encodePacket,
  decodeChunks,
  encodeChunks,
  writeChunk,
  chunkHeaderSize,
  maxChunkSize,
  decodeControl,
  controlPayload,
  NET_MAX_PACKETSIZE,
  NET_MAX_SEQUENCE,
  NET_TOKEN_NONE,
  DDNET_TKEN,
  CTRL_KEEPALIVE,
  CTRL_CONNECT,
  CTRL_CONNECTACCEPT,
  CTRL_ACCEPT,
  CTRL_CLOSE,
  CTRL_TOKEN,
} from './packet.js';
export { NetConn, inBackroom, NET_CONN_BUFFERSIZE, PEER_RESEND_INTERVAL_MS, type ConnOptions } from './conn.js';
export {
  MsgReader,
  MsgWriter,
  type MsgHeader,
  readMsgHeader,
  msgHeader,
  msgName,
  msgIds,
  type MsgIds,
  IDS_06,
  IDS_07,
  SYS_06,
  SYS_07,
  GAME_06,
  GAME_07,
  DDNET_UUIDS,
  UUID_CLIENTVER,
  NETVERSION_06,
  NETVERSION_07,
  uuidText,
  uuidBytes,
} from './msg.js';
export {
  TeeworldsClient,
  type ClientOptions,
  type ClientState,
  type ClientEvents,
  type ClientMessage,
  type ClientProblem,
  type ClientInfo07,
  type ReceivedSnapshot,
} from './client.js';
export { describeMessage, type MessageDescription } from './describe.js';
export { decodeTeeworldsCapture, type CapturedDatagram, type CapturedSnapshot, type CaptureOptions as TeeworldsCaptureOptions } from './capture.js';
export { WorldMirror, type WorldPlayer, type WorldCharacter, type WorldProjectile } from './world.js';
export { connectTeeworlds, createTeeworldsClient, type UdpConnectOptions, type UdpTeeworldsClient } from './connect.js';
