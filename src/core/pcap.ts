/**
 * A small, protocol-neutral packet-capture layer: read classic pcap (both byte
 * orders, micro- and nanosecond timestamps) and pcapng (section header,
 * interface description, enhanced / simple / obsolete packet blocks), write
 * classic pcap, and pull UDP datagrams out of the captured frames (Ethernet with
 * VLAN tags, BSD loopback, Linux cooked v1/v2, raw IPv4/IPv6).
 *
 * Reading is total: a malformed file gives a DecodeError naming the byte offset.
 */
import { DecodeError, LimitError } from './errors.js';

/** Link-layer types (the subset tickwire understands). */
export const LINKTYPE_NULL = 0;
export const LINKTYPE_ETHERNET = 1;
export const LINKTYPE_RAW = 101;
export const LINKTYPE_LINUX_SLL = 113;
export const LINKTYPE_IPV4 = 228;
export const LINKTYPE_IPV6 = 229;
export const LINKTYPE_LINUX_SLL2 = 276;

export interface CapturedFrame {
  /** Seconds since the Unix epoch (fractional). */
  time: number;
  linkType: number;
  /** Captured bytes (may be shorter than `originalLength`). */
  data: Uint8Array;
  originalLength: number;
  /** Byte offset of the record in the file. */
  offset: number;
}

export interface Capture {
  format: 'pcap' | 'pcapng';
  frames: CapturedFrame[];
}

export interface CaptureOptions {
  /** Most frames to read (default 1 << 20). */
  maxFrames?: number;
  /** Largest single frame in bytes (default 262144). */
  maxFrameSize?: number;
}

const PCAPNG_SHB = 0x0a0d0d0a;

/** True when the bytes start like a pcap or pcapng file. */
export function isCapture(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  const m = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
  return m === 0xa1b2c3d4 || m === 0xd4c3b2a1 || m === 0xa1b23c4d || m === 0x4d3cb2a1 || m === PCAPNG_SHB;
}

/** Read a pcap or pcapng file. */
export function readCapture(bytes: Uint8Array, opts: CaptureOptions = {}): Capture {
  if (bytes.length < 4) throw new DecodeError(0, 'magic', 'a pcap or pcapng magic number', `${bytes.length} bytes`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, false) === PCAPNG_SHB) return readPcapng(bytes, dv, opts);
  return readPcap(bytes, dv, opts);
}

function readPcap(bytes: Uint8Array, dv: DataView, opts: CaptureOptions): Capture {
  const maxFrames = opts.maxFrames ?? 1 << 20;
  const maxFrame = opts.maxFrameSize ?? 262144;
  const magicBe = dv.getUint32(0, false);
  let le: boolean;
  if (magicBe === 0xa1b2c3d4 || magicBe === 0xa1b23c4d) le = false;
  else if (magicBe === 0xd4c3b2a1 || magicBe === 0x4d3cb2a1) le = true;
  else throw new DecodeError(0, 'magic', 'a pcap or pcapng magic number', `0x${magicBe.toString(16).padStart(8, '0')}`);
  const nano = magicBe === 0xa1b23c4d || magicBe === 0x4d3cb2a1;
  if (bytes.length < 24) throw new DecodeError(bytes.length, 'header', 'a 24-byte pcap file header', `${bytes.length} bytes`);
  const linkType = dv.getUint32(20, le) & 0x0fffffff;
  const frames: CapturedFrame[] = [];
  let p = 24;
  while (p < bytes.length) {
    const i = frames.length;
    if (p + 16 > bytes.length) throw new DecodeError(p, `frames[${i}]`, 'a 16-byte record header', `${bytes.length - p} bytes`);
    if (i >= maxFrames) throw new LimitError(p, `frames[${i}]`, 'maxFrames', i + 1, maxFrames);
    const sec = dv.getUint32(p, le);
    const frac = dv.getUint32(p + 4, le);
    const incl = dv.getUint32(p + 8, le);
    const orig = dv.getUint32(p + 12, le);
    if (incl > maxFrame) throw new LimitError(p + 8, `frames[${i}].capturedLength`, 'maxFrameSize', incl, maxFrame);
    if (p + 16 + incl > bytes.length) throw new DecodeError(p + 16, `frames[${i}].data`, `${incl} bytes`, `${bytes.length - p - 16}`);
    frames.push({ time: sec + frac / (nano ? 1e9 : 1e6), linkType, data: bytes.subarray(p + 16, p + 16 + incl), originalLength: orig, offset: p });
    p += 16 + incl;
  }
  return { format: 'pcap', frames };
}

interface Iface {
  linkType: number;
  /** Timestamp units per second (10^6 unless `if_tsresol` says otherwise). */
  perSec: number;
  /** Most bytes captured of a packet (0: no limit). */
  snapLen: number;
}

function readPcapng(bytes: Uint8Array, dv: DataView, opts: CaptureOptions): Capture {
  const maxFrames = opts.maxFrames ?? 1 << 20;
  const maxFrame = opts.maxFrameSize ?? 262144;
  const frames: CapturedFrame[] = [];
  let ifaces: Iface[] = [];
  let le = true;
  let p = 0;
  let block = 0;
  while (p < bytes.length) {
    const path = `blocks[${block}]`;
    if (p + 12 > bytes.length) throw new DecodeError(p, path, 'a 12-byte block header and trailer', `${bytes.length - p} bytes`);
    const typeBe = dv.getUint32(p, false);
    if (typeBe === PCAPNG_SHB) {
      const bom = dv.getUint32(p + 8, false);
      if (bom === 0x1a2b3c4d) le = false;
      else if (bom === 0x4d3c2b1a) le = true;
      else throw new DecodeError(p + 8, `${path}.byteOrderMagic`, '0x1a2b3c4d in either byte order', `0x${bom.toString(16)}`);
      ifaces = [];
    } else if (block === 0) {
      throw new DecodeError(0, 'magic', 'a pcapng section header block', `0x${typeBe.toString(16)}`);
    }
    const type = dv.getUint32(p, le);
    const len = dv.getUint32(p + 4, le);
    if (len < 12 || len % 4 !== 0) throw new DecodeError(p + 4, `${path}.length`, 'a block length >= 12 and a multiple of 4', String(len));
    if (p + len > bytes.length) throw new DecodeError(p + 4, `${path}.length`, `${len} bytes of block`, `${bytes.length - p}`);
    if (dv.getUint32(p + len - 4, le) !== len)
      throw new DecodeError(p + len - 4, `${path}.trailingLength`, `the block length ${len} repeated`, String(dv.getUint32(p + len - 4, le)));
    const body = p + 8;
    const bodyEnd = p + len - 4;
    if (type === 1) {
      if (bodyEnd - body < 8) throw new DecodeError(body, `${path}.interface`, '8 bytes of interface description', `${bodyEnd - body}`);
      const iface: Iface = { linkType: dv.getUint16(body, le), perSec: 1e6, snapLen: dv.getUint32(body + 4, le) };
      // Options: look for if_tsresol (9).
      let o = body + 8;
      while (o + 4 <= bodyEnd) {
        const code = dv.getUint16(o, le);
        const olen = dv.getUint16(o + 2, le);
        if (code === 0) break;
        if (o + 4 + olen > bodyEnd) throw new DecodeError(o + 2, `${path}.options`, `${olen} bytes of option`, `${bodyEnd - o - 4}`);
        if (code === 9 && olen >= 1) {
          const r = bytes[o + 4]!;
          iface.perSec = r & 0x80 ? 2 ** (r & 0x7f) : 10 ** (r & 0x7f);
        }
        o += 4 + ((olen + 3) & ~3);
      }
      ifaces.push(iface);
    } else if (type === 6 || type === 2 || type === 3) {
      const i = frames.length;
      if (i >= maxFrames) throw new LimitError(p, path, 'maxFrames', i + 1, maxFrames);
      let ifIndex: number;
      let tsHi = 0;
      let tsLo = 0;
      let caplen: number;
      let orig: number;
      let data: number;
      if (type === 3) {
        if (bodyEnd - body < 4) throw new DecodeError(body, path, '4 bytes of simple packet block', `${bodyEnd - body}`);
        ifIndex = 0;
        orig = dv.getUint32(body, le);
        // The block's data is padded to 4 bytes: a packet cut at the interface's snap length
        // (not a multiple of 4) is that long, not as long as the padded data.
        const snap = ifaces[0]?.snapLen ?? 0;
        caplen = Math.min(orig, bodyEnd - body - 4, snap > 0 ? snap : Infinity);
        data = body + 4;
      } else {
        if (bodyEnd - body < 20) throw new DecodeError(body, path, '20 bytes of packet block header', `${bodyEnd - body}`);
        ifIndex = type === 6 ? dv.getUint32(body, le) : dv.getUint16(body, le);
        tsHi = dv.getUint32(body + 4, le);
        tsLo = dv.getUint32(body + 8, le);
        caplen = dv.getUint32(body + 12, le);
        orig = dv.getUint32(body + 16, le);
        data = body + 20;
      }
      if (caplen > maxFrame) throw new LimitError(data, `${path}.capturedLength`, 'maxFrameSize', caplen, maxFrame);
      if (data + caplen > bodyEnd) throw new DecodeError(data, `${path}.data`, `${caplen} bytes`, `${bodyEnd - data}`);
      const iface = ifaces[ifIndex];
      if (iface === undefined) throw new DecodeError(body, `${path}.interfaceId`, `an interface declared before (${ifaces.length} so far)`, String(ifIndex));
      frames.push({
        time: pcapngTime(tsHi * 4294967296 + tsLo, iface.perSec),
        linkType: iface.linkType,
        data: bytes.subarray(data, data + caplen),
        originalLength: orig,
        offset: p,
      });
    }
    // Other blocks (name resolution, statistics, custom, ...) are skipped.
    p += len;
    block++;
  }
  return { format: 'pcapng', frames };
}

/**
 * Seconds of a pcapng timestamp of `ts` units, `perSec` a second: whole seconds plus the fraction, as a pcap's
 * seconds and microseconds are added, so that one instant reads as the same number from either format.
 */
function pcapngTime(ts: number, perSec: number): number {
  const sec = Math.floor(ts / perSec);
  return sec + (ts - sec * perSec) / perSec;
}

/** Write a classic little-endian pcap file with microsecond timestamps. */
export function writePcap(frames: readonly { time: number; data: Uint8Array }[], linkType = LINKTYPE_RAW): Uint8Array {
  let n = 24;
  for (const f of frames) n += 16 + f.data.length;
  const out = new Uint8Array(n);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0xa1b2c3d4, true);
  dv.setUint16(4, 2, true);
  dv.setUint16(6, 4, true);
  dv.setUint32(16, 262144, true);
  dv.setUint32(20, linkType, true);
  let p = 24;
  for (const f of frames) {
    let sec = Math.floor(f.time);
    let usec = Math.round((f.time - sec) * 1e6);
    if (usec >= 1e6) {
      sec++;
      usec -= 1e6;
    }
    dv.setUint32(p, sec >>> 0, true);
    dv.setUint32(p + 4, usec, true);
    dv.setUint32(p + 8, f.data.length, true);
    dv.setUint32(p + 12, f.data.length, true);
    out.set(f.data, p + 16);
    p += 16 + f.data.length;
  }
  return out;
}

// ---------------------------------------------------------------------------
// UDP extraction

export interface UdpDatagram {
  /** Index of the frame in the capture. */
  frame: number;
  time: number;
  /** Dotted IPv4 or IPv6 text. */
  src: string;
  srcPort: number;
  dst: string;
  dstPort: number;
  payload: Uint8Array;
}

function ipv4Text(b: Uint8Array, at: number): string {
  return `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
}

function ipv6Text(b: Uint8Array, at: number): string {
  const words: number[] = [];
  for (let i = 0; i < 8; i++) words.push((b[at + 2 * i]! << 8) | b[at + 2 * i + 1]!);
  return ipv6Words(words);
}

/**
 * RFC 5952 text of eight 16-bit words: lower-case hex without leading zeros, the
 * longest run of two or more zero words (the first of equally long ones) as `::`.
 */
function ipv6Words(w: readonly number[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (w[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && w[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (a: number, z: number) =>
    w
      .slice(a, z)
      .map((x) => x.toString(16))
      .join(':');
  return best < 0 ? hex(0, 8) : `${hex(0, best)}::${hex(best + bestLen, 8)}`;
}

/**
 * The text `ipLayer` gives for an IPv4 or IPv6 address written any valid way (IPv6
 * in any case, with or without `::`, leading zeros, a dotted IPv4 tail), so that a
 * user's address compares equal to the capture's; undefined when it is no address.
 */
export function canonicalIp(text: string): string | undefined {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4 !== null) {
    const p = v4.slice(1).map(Number);
    return p.every((x) => x <= 255) ? p.join('.') : undefined;
  }
  let t = text;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(t);
  if (dotted !== null) {
    const q = canonicalIp(dotted[2]!);
    if (q === undefined) return undefined;
    const o = q.split('.').map(Number);
    tail.push((o[0]! << 8) | o[1]!, (o[2]! << 8) | o[3]!);
    t = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = t.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (head === undefined || rest === undefined) return undefined;
  const back = [...rest, ...tail];
  const fill = 8 - head.length - back.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return undefined;
  return ipv6Words([...head, ...new Array<number>(fill).fill(0), ...back]);
}

/** The network-layer packet of a frame (IPv4 / IPv6 bytes), or undefined for other frames. */
export function networkLayer(f: CapturedFrame): Uint8Array | undefined {
  const d = f.data;
  switch (f.linkType) {
    case LINKTYPE_NULL:
      return d.length >= 4 ? d.subarray(4) : undefined;
    case LINKTYPE_ETHERNET: {
      let p = 12;
      while (p + 2 <= d.length) {
        const et = (d[p]! << 8) | d[p + 1]!;
        if (et === 0x8100 || et === 0x88a8) {
          p += 4;
          continue;
        }
        return et === 0x0800 || et === 0x86dd ? d.subarray(p + 2) : undefined;
      }
      return undefined;
    }
    case LINKTYPE_LINUX_SLL:
      return d.length >= 16 ? d.subarray(16) : undefined;
    case LINKTYPE_LINUX_SLL2:
      return d.length >= 20 ? d.subarray(20) : undefined;
    case LINKTYPE_RAW:
    case LINKTYPE_IPV4:
    case LINKTYPE_IPV6:
    case 12:
    case 14:
      return d;
    default:
      return undefined;
  }
}

/** The IP layer of a frame: its addresses and where its transport header lies. */
export interface IpPacket {
  /** Dotted IPv4 or IPv6 text. */
  src: string;
  dst: string;
  /** The network-layer bytes; the transport header starts at `at`, the packet ends at `end`. */
  bytes: Uint8Array;
  at: number;
  end: number;
}

/**
 * The one IPv4 / IPv6 header parser (used by UDP here and by TCP in `tcp.ts`): the
 * packet of a frame when it carries transport `protocol` (6 TCP, 17 UDP) whole and
 * unfragmented; undefined otherwise. IPv6 hop-by-hop, routing and destination
 * options headers are skipped; a fragment header (44) ends the search.
 */
export function ipLayer(f: CapturedFrame, protocol: number): IpPacket | undefined {
  const ip = networkLayer(f);
  if (ip === undefined || ip.length < 1) return undefined;
  const v = ip[0]! >> 4;
  if (v === 4) {
    if (ip.length < 20) return undefined;
    const ihl = (ip[0]! & 0x0f) * 4;
    // A total length of 0 is a segmentation-offload packet captured before the NIC cut it up (the
    // sending host's own capture): its length is the captured bytes', as Wireshark reads it.
    const total = (ip[2]! << 8) | ip[3]! || ip.length;
    const frag = ((ip[6]! << 8) | ip[7]!) & 0x3fff; // MF flag + fragment offset
    if (ihl < 20 || ip[9] !== protocol || frag !== 0 || total < ihl || total > ip.length) return undefined;
    return { src: ipv4Text(ip, 12), dst: ipv4Text(ip, 16), bytes: ip, at: ihl, end: total };
  }
  if (v === 6) {
    if (ip.length < 40) return undefined;
    const end = 40 + ((ip[4]! << 8) | ip[5]!);
    if (end > ip.length) return undefined;
    let next = ip[6]!;
    let p = 40;
    while (next === 0 || next === 43 || next === 60) {
      if (p + 8 > end) return undefined;
      next = ip[p]!;
      p += 8 + ip[p + 1]! * 8;
    }
    if (next !== protocol) return undefined;
    return { src: ipv6Text(ip, 8), dst: ipv6Text(ip, 24), bytes: ip, at: p, end };
  }
  return undefined;
}

/** Parse one frame into a UDP datagram; undefined when it is not a complete, unfragmented UDP packet. */
export function frameToUdp(f: CapturedFrame, index = 0): UdpDatagram | undefined {
  const pk = ipLayer(f, 17);
  if (pk === undefined) return undefined;
  const ip = pk.bytes;
  const udp = pk.at;
  if (udp + 8 > pk.end) return undefined;
  const ulen = (ip[udp + 4]! << 8) | ip[udp + 5]!;
  if (ulen < 8 || udp + ulen > pk.end) return undefined;
  return {
    frame: index,
    time: f.time,
    src: pk.src,
    srcPort: (ip[udp]! << 8) | ip[udp + 1]!,
    dst: pk.dst,
    dstPort: (ip[udp + 2]! << 8) | ip[udp + 3]!,
    payload: ip.subarray(udp + 8, udp + ulen),
  };
}

/** All complete UDP datagrams of a capture, in capture order. Other frames are skipped. */
export function udpDatagrams(c: Capture): UdpDatagram[] {
  const out: UdpDatagram[] = [];
  for (let i = 0; i < c.frames.length; i++) {
    const u = frameToUdp(c.frames[i]!, i);
    if (u !== undefined) out.push(u);
  }
  return out;
}

/** Build an IPv4 + UDP packet (for LINKTYPE_RAW captures); checksums are computed. */
export function buildUdpIpv4(src: string, srcPort: number, dst: string, dstPort: number, payload: Uint8Array, ipId = 0): Uint8Array {
  const s = src.split('.').map(Number);
  const d = dst.split('.').map(Number);
  if (s.length !== 4 || d.length !== 4 || [...s, ...d].some((x) => !(x >= 0 && x <= 255))) throw new RangeError('IPv4 addresses expected');
  const total = 28 + payload.length;
  if (total > 65535) throw new RangeError('UDP payload too large');
  const out = new Uint8Array(total);
  out[0] = 0x45;
  out[2] = total >> 8;
  out[3] = total & 0xff;
  out[4] = (ipId >> 8) & 0xff;
  out[5] = ipId & 0xff;
  out[6] = 0x40; // don't fragment
  out[8] = 64;
  out[9] = 17;
  out.set(s, 12);
  out.set(d, 16);
  let sum = 0;
  for (let i = 0; i < 20; i += 2) sum += (out[i]! << 8) | out[i + 1]!;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  const c = ~sum & 0xffff;
  out[10] = c >> 8;
  out[11] = c & 0xff;
  const ulen = 8 + payload.length;
  out[20] = srcPort >> 8;
  out[21] = srcPort & 0xff;
  out[22] = dstPort >> 8;
  out[23] = dstPort & 0xff;
  out[24] = ulen >> 8;
  out[25] = ulen & 0xff;
  out.set(payload, 28);
  // UDP checksum over the pseudo header.
  let us = 0;
  for (let i = 12; i < 20; i += 2) us += (out[i]! << 8) | out[i + 1]!;
  us += 17 + ulen;
  for (let i = 20; i < total; i += 2) us += (out[i]! << 8) | (i + 1 < total ? out[i + 1]! : 0);
  while (us > 0xffff) us = (us & 0xffff) + (us >>> 16);
  let uc = ~us & 0xffff;
  if (uc === 0) uc = 0xffff;
  out[26] = uc >> 8;
  out[27] = uc & 0xff;
  return out;
}
