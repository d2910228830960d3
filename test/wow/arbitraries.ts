/** fast-check arbitraries for WoW blocks of every kind and flag combination. */
import fc from 'fast-check';
import { bitsToF32 } from '../../src/core/floats.js';
import { PackedValues, nanNeedsBits } from '../../src/protocols/wow/index.js';
import type { Movement, Spline, UpdateBlock, UpdateBody, UpdateValues, Vec3 } from '../../src/protocols/wow/index.js';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
/** Float bits, biased towards the awkward ones: signalling and negative NaNs, infinities, -0. */
const floatBits = fc.oneof(
  { weight: 6, arbitrary: u32 },
  { weight: 1, arbitrary: fc.constantFrom(0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fa00000, 0x3f800000) },
);
export const guidArb = fc.oneof(
  fc.constant(0n),
  fc.bigInt({ min: 1n, max: 0xffffn }),
  fc.bigInt({ min: 0n, max: 0xffffffffffffffffn }),
  fc.constantFrom(0xf130001de3000105n, 0x1fc0000000005148n, 0x4000000000000001n),
);

const LAYOUT_MOVE_BITS = [0x2000, 0x00200000, 0x00400000, 0x02000000, 0x04000000];
const moveFlagsArb = fc.tuple(fc.subarray(LAYOUT_MOVE_BITS), u32).map(([bits, noise]) => {
  let f = (noise & ~(0x2000 | 0x00200000 | 0x00400000 | 0x02000000 | 0x04000000)) >>> 0;
  for (const b of bits) f = (f | b) >>> 0;
  return f;
});
const splineFlagsArb = fc.tuple(fc.constantFrom(0, 0x10000, 0x20000, 0x40000), u32).map(([facing, noise]) => ((noise & ~0x70000) | facing) >>> 0);

interface RawMovement {
  updateFlags: number;
  moveFlags: number;
  time: number;
  fallTime: number;
  floats: number[];
  transportGuid: bigint;
  splineFlags: number;
  facingTarget: bigint;
  timePassed: number;
  duration: number;
  id: number;
  nodes: number[];
  highGuid: number;
  all: number;
  victim: bigint;
  transportTime: number;
}

function buildMovement(r: RawMovement): Movement {
  const m: Movement = { updateFlags: r.updateFlags };
  let k = 0;
  const fl = (path: string): number => {
    const bits = r.floats[k++]!;
    if (nanNeedsBits(bits)) (m.nanBits ??= {})[path] = bits;
    return bitsToF32(bits);
  };
  const v3 = (path: string): Vec3 => [fl(`${path}[0]`), fl(`${path}[1]`), fl(`${path}[2]`)];
  if (r.updateFlags & 0x20) {
    const mf = r.moveFlags;
    const mi: NonNullable<Movement['movementInfo']> = {
      flags: mf,
      time: r.time,
      x: fl('movementInfo.x'),
      y: fl('movementInfo.y'),
      z: fl('movementInfo.z'),
      o: fl('movementInfo.o'),
      fallTime: r.fallTime,
    };
    if (mf & 0x02000000)
      mi.transport = {
        guid: r.transportGuid,
        x: fl('movementInfo.transport.x'),
        y: fl('movementInfo.transport.y'),
        z: fl('movementInfo.transport.z'),
        o: fl('movementInfo.transport.o'),
      };
    if (mf & 0x00200000) mi.pitch = fl('movementInfo.pitch');
    if (mf & 0x2000)
      mi.jump = {
        zSpeed: fl('movementInfo.jump.zSpeed'),
        cosAngle: fl('movementInfo.jump.cosAngle'),
        sinAngle: fl('movementInfo.jump.sinAngle'),
        xySpeed: fl('movementInfo.jump.xySpeed'),
      };
    if (mf & 0x04000000) mi.splineElevation = fl('movementInfo.splineElevation');
    m.movementInfo = mi;
    m.speeds = {
      walk: fl('speeds.walk'),
      run: fl('speeds.run'),
      runBack: fl('speeds.runBack'),
      swim: fl('speeds.swim'),
      swimBack: fl('speeds.swimBack'),
      turnRate: fl('speeds.turnRate'),
    };
    if (mf & 0x00400000) {
      const sf = r.splineFlags;
      const s: Spline = {
        flags: sf,
        timePassed: r.timePassed,
        duration: r.duration,
        id: r.id,
        nodes: new Float32Array(new Uint32Array(r.nodes).buffer),
        finalDestination: [0, 0, 0],
      };
      if (sf & 0x10000) s.facingPoint = v3('spline.facingPoint');
      else if (sf & 0x20000) s.facingTarget = r.facingTarget;
      else if (sf & 0x40000) s.facingAngle = fl('spline.facingAngle');
      s.finalDestination = v3('spline.finalDestination');
      m.spline = s;
    }
  } else if (r.updateFlags & 0x40) {
    m.position = { x: fl('position.x'), y: fl('position.y'), z: fl('position.z'), o: fl('position.o') };
  }
  if (r.updateFlags & 0x08) m.highGuid = r.highGuid;
  if (r.updateFlags & 0x10) m.all = r.all;
  if (r.updateFlags & 0x04) m.victim = r.victim;
  if (r.updateFlags & 0x02) m.transportTime = r.transportTime;
  return m;
}

export const movementArb: fc.Arbitrary<Movement> = fc
  .record({
    updateFlags: fc.integer({ min: 0, max: 255 }),
    moveFlags: moveFlagsArb,
    time: u32,
    fallTime: u32,
    floats: fc.array(floatBits, { minLength: 40, maxLength: 40 }),
    transportGuid: guidArb,
    splineFlags: splineFlagsArb,
    facingTarget: guidArb,
    timePassed: u32,
    duration: u32,
    id: u32,
    nodes: fc.integer({ min: 0, max: 6 }).chain((n) => fc.array(floatBits, { minLength: 3 * n, maxLength: 3 * n })),
    highGuid: u32,
    all: u32,
    victim: guidArb,
    transportTime: u32,
  })
  .map(buildMovement);

export const valuesArb: fc.Arbitrary<UpdateValues> = fc
  .integer({ min: 0, max: 42 })
  .chain((n) =>
    fc.array(
      fc.oneof(
        fc.constant(0),
        u32,
        fc.integer({ min: 0, max: 31 }).map((b) => (1 << b) >>> 0),
      ),
      { minLength: n, maxLength: n },
    ),
  )
  .chain((words) => {
    let pop = 0;
    for (const w of words) for (let x = w; x !== 0; x &= x - 1) pop++;
    return fc.array(u32, { minLength: pop, maxLength: pop }).map((vals) => PackedValues.of(words, vals));
  });

export const blockArb: fc.Arbitrary<UpdateBlock> = fc.oneof(
  fc.record({ updateType: fc.constant(0 as const), guid: guidArb, values: valuesArb }).map((r) => ({ ...r })),
  fc.record({ updateType: fc.constant(1 as const), guid: guidArb, movement: movementArb }).map((r) => ({ ...r })),
  fc
    .record({
      updateType: fc.constantFrom(2 as const, 3 as const),
      guid: guidArb,
      objectTypeId: fc.integer({ min: 0, max: 255 }),
      movement: movementArb,
      values: valuesArb,
    })
    .map((r) => ({ ...r })),
  fc.record({ updateType: fc.constantFrom(4 as const, 5 as const), guids: fc.array(guidArb, { maxLength: 8 }) }).map((r) => ({ ...r })),
);

export const bodyArb: fc.Arbitrary<UpdateBody> = fc
  .record({ hasTransport: fc.integer({ min: 0, max: 255 }), blocks: fc.array(blockArb, { maxLength: 5 }) })
  .map((r) => ({ ...r }));
