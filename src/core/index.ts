export { DecodeError, LimitError, EncodeError, atPath, rethrowAt, total } from './errors.js';
export { DEFAULT_LIMITS, resolveLimits } from './limits.js';
export type { Limits, DecodeOptions } from './limits.js';
export { SpanSink } from './spans.js';
export type { Span } from './spans.js';
export { ByteReader, decodeUtf8 } from './reader.js';
export { ByteWriter, vu32Size } from './writer.js';
export { BitReader, BitWriter } from './bits.js';
export { decodeLz4Block, encodeLz4Block, lz4Bound } from './lz4.js';
export { inflateZlib, inflateZlibAsync, inflateZlibMany, InflatedZlib, platformInflates, deflateZlib, type ZlibStream } from './zlib.js';
export type { AsyncInflateOptions, InflateOptions, ZlibImpl } from './zlib.js';
export { toHex, fromHex, hexdump, parseHexLines } from './hex.js';
export type { HexdumpOptions } from './hex.js';
export { f32ToBits, bitsToF32, f32NeedsBits, shortestF32 } from './floats.js';
export { toJsonValue, excerpt } from './json.js';
export {
  readCapture,
  writePcap,
  isCapture,
  udpDatagrams,
  frameToUdp,
  buildUdpIpv4,
  LINKTYPE_RAW,
  LINKTYPE_ETHERNET,
  LINKTYPE_NULL,
  LINKTYPE_LINUX_SLL,
  LINKTYPE_LINUX_SLL2,
  LINKTYPE_IPV4,
  LINKTYPE_IPV6,
} from './pcap.js';
export type { Capture, CapturedFrame, CaptureOptions, UdpDatagram } from './pcap.js';
export { noChanges } from './mirror.js';
export type { ClientMirror, MirrorChanges, MirrorIssue, MirroredEntity, Producer } from './mirror.js';
export {
  frameToTcp,
  tcpEvents,
  tcpEventStream,
  TcpReassembler,
  buildTcpPacket,
  DEFAULT_TCP_LIMITS,
  TCP_FIN,
  TCP_SYN,
  TCP_RST,
  TCP_PSH,
  TCP_ACK,
} from './tcp.js';
export type { TcpSegment, TcpEvent, TcpLimits, TcpConnection, TcpDirection, TcpEndpoint, TcpFlowStats, TcpOptions, TcpSegmentSpec } from './tcp.js';
