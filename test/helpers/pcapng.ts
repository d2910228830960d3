/**
 * A pcap file's frames written again as pcapng (section header, one interface per link type, one enhanced packet
 * block per frame, microsecond timestamps): the same capture in the other format, for the tests that open both.
 */
import { readCapture } from '../../src/core/pcap.js';

/** A pcapng block: type, total length, the body padded to 4 bytes, the length again (in the byte order `le` says). */
export function pcapngBlock(type: number, body: ArrayLike<number>, le = true): Uint8Array {
  const pad = (4 - (body.length % 4)) % 4;
  const len = 12 + body.length + pad;
  const b = new Uint8Array(len);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, type, le);
  dv.setUint32(4, len, le);
  b.set(body, 8);
  dv.setUint32(len - 4, len, le);
  return b;
}

export function toPcapng(pcap: Uint8Array): Uint8Array {
  const cap = readCapture(pcap);
  const out: Uint8Array[] = [];
  const shb = new Uint8Array(16);
  const sv = new DataView(shb.buffer);
  sv.setUint32(0, 0x1a2b3c4d, true);
  sv.setUint16(4, 1, true);
  sv.setUint16(6, 0, true);
  sv.setInt32(8, -1, true);
  sv.setInt32(12, -1, true);
  out.push(pcapngBlock(0x0a0d0d0a, shb));
  const iface = new Map<number, number>();
  for (const f of cap.frames) {
    let i = iface.get(f.linkType);
    if (i === undefined) {
      i = iface.size;
      iface.set(f.linkType, i);
      const idb = new Uint8Array(8);
      const iv = new DataView(idb.buffer);
      iv.setUint16(0, f.linkType, true);
      iv.setUint32(4, 262144, true);
      out.push(pcapngBlock(1, idb));
    }
    const epb = new Uint8Array(20 + f.data.length);
    const ev = new DataView(epb.buffer);
    const us = Math.round(f.time * 1e6);
    ev.setUint32(0, i, true);
    ev.setUint32(4, Math.floor(us / 2 ** 32), true);
    ev.setUint32(8, us >>> 0, true);
    ev.setUint32(12, f.data.length, true);
    ev.setUint32(16, f.originalLength, true);
    epb.set(f.data, 20);
    out.push(pcapngBlock(6, epb));
  }
  const total = out.reduce((n, b) => n + b.length, 0);
  const file = new Uint8Array(total);
  let at = 0;
  for (const b of out) {
    file.set(b, at);
    at += b.length;
  }
  return file;
}
