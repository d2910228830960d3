/**
 * Server side (§9): turn the NetObj updates of a tick into 0x16 messages, with a
 * DeltaUpdate wherever the previous update in the message has the same length (at
 * most 63 data bytes) and the delta is strictly shorter than the raw form, then LZ4.
 */
import { EncodeError } from '../../core/errors.js';
import { ControllerTable, frameMessage, SubUpdateWriter } from './codec.js';
import { Out } from './out.js';
import { int, obj } from './primitives.js';
import { CT_CHILDSHAPE_BLOCK, CT_CHILDSHAPE_PART, CT_RIGIDBODY_DYNAMIC, CT_RIGIDBODY_STATIC, NETOBJ_TYPES, SM_LZ4_CAP, type NetworkUpdate, type Variant } from './types.js';

export interface ProducerOptions {
  /** 0x16 (default) or 0x15 while a client joins. */
  packetId?: 0x15 | 0x16;
  /** LZ4 flavour: 'fast' (default) or 'literal'. */
  lz4?: 'fast' | 'literal';
  /** Largest decompressed body; bigger batches are split into several messages (default 0x80000, §9.4). */
  maxBody?: number;
  /** Emit DeltaUpdates where they are shorter (default true). */
  deltas?: boolean;
}

export class NetworkUpdateProducer {
  /**
   * Controller type of every object this producer created, so that RigidBody and
   * ChildShape Updates given without a `variant` get the right layout.
   */
  readonly controllers = new ControllerTable();
  private readonly out = new Out(4096);

  constructor(readonly options: ProducerOptions = {}) {}

  /** The decompressed bodies (tick + sub-updates) for one tick: one, or several past `maxBody`. */
  bodies(tick: number, updates: readonly NetworkUpdate[]): Uint8Array[] {
    int(tick, 0, 0xffffffff, 'tick');
    const max = this.options.maxBody ?? SM_LZ4_CAP;
    const form = this.options.deltas === false ? 'raw' : 'auto';
    const o = this.out;
    o.pos = 0;
    const w = new SubUpdateWriter(o);
    const bodies: Uint8Array[] = [];
    o.u32(tick);
    let inBody = 0;
    for (let i = 0; i < updates.length; i++) {
      const u = obj(updates[i], `updates[${i}]`);
      const hint = this.variantOf(u);
      const start = o.pos;
      w.write(u, form, undefined, `updates[${i}]`, hint);
      if (o.pos > max && inBody > 0) {
        // does not fit: close the body before it, start a new one (the delta base restarts)
        o.pos = start;
        bodies.push(o.finish());
        o.pos = 0;
        o.u32(tick);
        w.reset();
        inBody = 0;
        w.write(u, form, undefined, `updates[${i}]`, hint);
      }
      if (o.pos > max) throw new EncodeError(`updates[${i}]`, `one update does not fit in a body of ${max} bytes`);
      inBody++;
      this.track(u);
    }
    bodies.push(o.finish());
    return bodies;
  }

  /** The messages (id byte + LZ4 block) for one tick. */
  produce(tick: number, updates: readonly NetworkUpdate[]): Uint8Array[] {
    const id = this.options.packetId ?? 0x16;
    return this.bodies(tick, updates).map((b) => frameMessage(id, b, this.options.lz4 ?? 'fast'));
  }

  /** The variant of a RigidBody / ChildShape Update given without one, from the Create this producer sent. */
  private variantOf(u: Record<string, unknown>): Variant | undefined {
    if (u.updateType !== 'Update' || u.variant !== undefined) return undefined;
    const ot = u.netObjType === 'RigidBody' ? 0 : u.netObjType === 'ChildShape' ? 1 : -1;
    if (ot < 0 || typeof u.id !== 'number') return undefined;
    const ct = this.controllers.get(ot, u.id);
    if (ot === 0) return ct === CT_RIGIDBODY_STATIC ? 'static' : ct === CT_RIGIDBODY_DYNAMIC ? 'dynamic' : undefined;
    return ct === CT_CHILDSHAPE_BLOCK ? 'block' : ct === CT_CHILDSHAPE_PART ? 'part' : undefined;
  }

  private track(u: Record<string, unknown>): void {
    if (u.updateType !== 'Create' && u.updateType !== 'Remove') return;
    const ot = NETOBJ_INDEX[u.netObjType as string];
    if (ot === undefined || typeof u.id !== 'number') return;
    if (u.updateType === 'Create' && typeof u.controllerType === 'number') this.controllers.set(ot, u.id, u.controllerType);
    else if (u.updateType === 'Remove') this.controllers.delete(ot, u.id);
  }
}

const NETOBJ_INDEX: Record<string, number> = Object.fromEntries(NETOBJ_TYPES.map((n, i) => [n, i]));
