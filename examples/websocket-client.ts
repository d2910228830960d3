/**
 * The client half of examples/websocket.ts, for browsers and Node alike: it
 * imports nothing from Node and uses only the standard WebSocket interface, so
 * a page bundles it and calls `mirrorOver(WebSocket, 'ws://127.0.0.1:18420/')`.
 */
import { t, defineEntity, ReplicationClient } from '../src/replication/index.js';

export const Ship = defineEntity('Ship', { x: t.f32(), y: t.f32(), hp: t.u8(), name: t.string(16), heading: t.quantized(0, 360, 0.5) });
export const entities = [Ship] as const;

/** What `mirrorOver` needs of a WebSocket: the browser's own, or `ws`'s. */
export interface WebSocketLike {
  binaryType: string;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onopen: (() => void) | null;
  close(): void;
}
export type WebSocketCtor = new (url: string) => WebSocketLike;

/** A client mirroring the server's world over a WebSocket (browser or Node). */
export function mirrorOver(WS: WebSocketCtor, url: string, onPacket?: (c: ReplicationClient<typeof entities>) => void) {
  const client = new ReplicationClient({ entities });
  const ws = new WS(url);
  ws.binaryType = 'arraybuffer';
  const open = new Promise<void>((resolve) => (ws.onopen = () => resolve()));
  let errors = 0;
  ws.onmessage = (ev) => {
    try {
      client.receive(new Uint8Array(ev.data as ArrayBuffer));
    } catch (e) {
      errors++;
      console.error(`bad packet: ${(e as Error).message}`);
      return;
    }
    onPacket?.(client);
  };
  return { client, open, errors: () => errors, stop: () => ws.close() };
}
