/**
 * Views for `tickwire relay --clients examples/relay-view.ts`: a WebSocket
 * client that connects to `ws://HOST:PORT/?x=250&y=250&r=180` sees the
 * entities whose `x`, `y` lie within that circle; `&owner=TAG` also shows it
 * the owner-only fields of entities spawned with that tag (none reach a relay:
 * it follows the public world). A client without x, y and r (and every UDP
 * client) sees everything; one with a bad value is refused (the WebSocket is
 * closed with code 1008 and the reason).
 */
import type { ClientInfo } from '../src/replication/nats/index.js';
import type { ServerClientOptions as ClientOptions } from '../src/replication/index.js';

export default function view(client: ClientInfo): ClientOptions {
  const q = new URL(client.path ?? '/', 'ws://relay').searchParams;
  const owner = q.get('owner') ?? undefined;
  if (!q.has('x') && !q.has('y') && !q.has('r')) return { owner };
  const [x, y, r] = ['x', 'y', 'r'].map((k) => Number(q.get(k) ?? Number.NaN));
  if (!Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(r) || r! < 0)
    throw new RangeError(`a view needs finite x, y and r >= 0, not ${client.path}`);
  const r2 = r! * r!;
  return {
    owner,
    interest: (_id, v) => {
      const dx = (v.x as number) - x!;
      const dy = (v.y as number) - y!;
      return dx * dx + dy * dy <= r2;
    },
  };
}
