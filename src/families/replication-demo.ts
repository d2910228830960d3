/**
 * The entity definitions of the bundled `replication` sample
 * (samples/replication/demo.hex, made by scripts/replication-make-sample.ts).
 * The adapter's sample carries this schema as JSON text in its options, so the
 * inspector page (which has no file system) can decode it.
 */
import { t, defineEntity, schemaToJson } from '../replication/index.js';

export const DemoShip = defineEntity('Ship', {
  x: t.f32(),
  y: t.f32(),
  heading: t.quantized(0, 360, 0.5),
  mass: t.f64(),
  hp: t.u8(),
  shield: t.i16(),
  boosting: t.bool(),
  name: t.string(16),
  target: t.ref(),
  cargo: t.array(t.u16(), 8),
});
export const DemoRock = defineEntity('Rock', { x: t.f32(), y: t.f32(), size: t.u8(), score: t.varint(), tag: t.bytes(4) });
export const DemoPlayer = defineEntity('Player', { name: t.string(24), ship: t.ref(), kills: t.u32(), ping: t.i32(), ready: t.bool() });

export const DEMO_ENTITIES = [DemoShip, DemoRock, DemoPlayer] as const;
export const DEMO_SCHEMA_JSON = schemaToJson(DEMO_ENTITIES);
