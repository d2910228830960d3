/**
 * Server side (§9): turn the NetObj updates of a tick into 0x16 messages, with a
 * DeltaUpdate wherever the previous update in the message has the same length (at
 * most 63 data bytes) and the delta is strictly shorter than the raw form, then LZ4.
 */
import { EncodeError } from '../../core/errors.js';
import type { Producer } from '../../core/mirror.js';
import { SubUpdateWriter } from './body-write.js';
import { ControllerTable } from './controllers.js';
import { SM_DEFAULT_LIMITS } from './limits.js';
import { frameMessage } from './message.js';
import { Out } from './out.js';
import { arr, int, obj } from './primitives.js';
import { CT_CHILDSHAPE_BLOCK, CT_CHILDSHAPE_PART, CT_RIGIDBODY_DYNAMIC, CT_RIGIDBODY_STATIC, SM_LZ4_CAP, type NetworkUpdate, type Variant } from './types.js';

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

/**
 * The family's `Producer`: `produce(tick, updates)` gives the messages of one tick.
 * Every update is checked with the decoder's own rules against the controller types a
 * client will have tracked (this producer's `controllers`), so nothing is sent that a
 * client would refuse; a tick that fails leaves the producer as it was.
 */
export class NetworkUpdateProducer implements Producer<[number, readonly NetworkUpdate[]]> {
  /**
   * Controller type of every object this producer created (as its clients track them),
   * so that RigidBody and ChildShape Updates given without a `variant` get the right
   * layout.
   */
  readonly controllers = new ControllerTable();
  private readonly out = new Out(4096);

  constructor(readonly options: ProducerOptions = {}) {}

  /**
   * The decompressed bodies (tick + sub-updates) for one tick: one, or several past
   * `maxBody` bytes or past the decoder's smMaxUpdates sub-updates.
   */
  bodies(tick: number, updates: readonly NetworkUpdate[]): Uint8Array[] {
    int(tick, 0, 0xffffffff, 'tick');
    arr(updates, 'updates');
    const max = this.options.maxBody ?? SM_LZ4_CAP;
    const maxUpdates = SM_DEFAULT_LIMITS.smMaxUpdates;
    const form = this.options.deltas === false ? 'raw' : 'auto';
    const o = this.out;
    o.pos = 0;
    o.u32(tick);
    const w = new SubUpdateWriter(o, this.controllers);
    const bodies: Uint8Array[] = [];
    let inBody = 0;
    this.controllers.begin();
    try {
      for (let i = 0; i < updates.length; i++) {
        if (inBody === maxUpdates) {
          this.newBody(w, bodies, tick);
          inBody = 0;
        }
        if (this.writeOne(w, updates, i, form, max, bodies, tick)) inBody = 0;
        inBody++;
      }
    } catch (e) {
      this.controllers.rollback();
      throw e;
    }
    this.controllers.commit();
    bodies.push(o.finish());
    return bodies;
  }

  /** Write update i; when it does not fit, start a new body with it (returns true). */
  private writeOne(
    w: SubUpdateWriter,
    updates: readonly NetworkUpdate[],
    i: number,
    form: 'raw' | 'auto',
    max: number,
    bodies: Uint8Array[],
    tick: number,
  ): boolean {
    const o = this.out;
    const u = obj(updates[i], `updates[${i}]`);
    const hint = this.variantOf(u);
    const start = o.pos;
    w.write(u, form, undefined, `updates[${i}]`, hint);
    let split = false;
    if (o.pos > max && start > 4) {
      // does not fit: close the body before it, start a new one (the delta base restarts)
      o.pos = start;
      this.newBody(w, bodies, tick);
      w.write(u, form, undefined, `updates[${i}]`, hint);
      split = true;
    }
    if (o.pos > max) throw new EncodeError(`updates[${i}]`, `one update does not fit in a body of ${max} bytes`);
    return split;
  }

  private newBody(w: SubUpdateWriter, bodies: Uint8Array[], tick: number): void {
    const o = this.out;
    bodies.push(o.finish());
    o.pos = 0;
    o.u32(tick);
    w.reset();
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
}
