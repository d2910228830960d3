import { DemoWriter, demoChunks, demoEvents, type DemoInfo, type Snapshot } from '../../src/protocols/teeworlds/index.js';

/** Rewrite a demo chunk by chunk with our writer: snapshots (re-delta'd by our createDelta), empty ticks, messages. */
export function rewrite(b: Uint8Array, info: DemoInfo): Uint8Array {
  const o: ConstructorParameters<typeof DemoWriter>[0] = {
    codec: info.codec,
    version: info.header.version,
    netVersion: info.header.netVersion,
    mapName: info.header.mapName,
    map: info.map,
    type: info.header.type as 'server',
    timestamp: info.header.timestamp,
    markers: info.markers,
  };
  if (info.markersRaw) o.markersRaw = info.markersRaw;
  if (info.mapSha256) o.mapSha256 = info.mapSha256;
  const w = new DemoWriter(o);
  const snaps = new Map<number, Snapshot>();
  for (const e of demoEvents(b, info)) if (e.kind !== 'message') snaps.set(e.offset, e.snapshot);
  let last: Snapshot | undefined;
  let pendingTick = -1;
  for (const c of demoChunks(b, info)) {
    if (c.kind === 'tick') {
      if (pendingTick >= 0) w.snapshot(pendingTick, last!); // a marker with no data: an unchanged snapshot
      pendingTick = c.tick;
    } else if (c.kind === 'message') {
      // a marker followed by a message, not by a delta: the recorder found the snapshot unchanged (0.7.5 writes the marker anyway)
      if (pendingTick >= 0) w.snapshot(pendingTick, last!);
      pendingTick = -1;
      w.message(new Uint8Array(c.ints.buffer, c.ints.byteOffset, c.ints.byteLength));
    } else {
      last = snaps.get(c.offset)!;
      w.snapshot(c.tick, last);
      pendingTick = -1;
    }
  }
  if (pendingTick >= 0) w.snapshot(pendingTick, last!); // a last marker with no data
  return w.finish();
}
