/** The schema of examples/nats-authority.ts, for clients that mirror it through relays (imports nothing from Node). */
import { t, defineEntity } from '../src/replication/index.js';

export const Ship = defineEntity('Ship', { x: t.f32(), y: t.f32(), hp: t.u8(), name: t.string(16), heading: t.quantized(0, 360, 0.5) });
export const entities = [Ship] as const;
