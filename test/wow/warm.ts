/**
 * JIT warm-up for exact-float checks: 60,000 decode → encode round trips of a
 * small frame carrying signalling and negative NaNs in every kind of float
 * field (movement, spline node, value slot). Optimised code must keep the bits.
 */
import { fromHex, toHex } from '../../src/core/hex.js';
import { decodePacket, encodePacket, encodeBody, frame, packetFromJson, packetToJson, PackedValues, type Movement } from '../../src/protocols/wow/index.js';

const SNAN = 0x7f9f0000;
const NEG_NAN = 0xffc00001;

function nanFrame(): Uint8Array {
  const m: Movement = {
    updateFlags: 0x70,
    movementInfo: { flags: 0x00400000, time: 1, x: NaN, y: 1.5, z: NaN, o: 0.72, fallTime: 0 },
    speeds: { walk: 2.5, run: NaN, runBack: 4.5, swim: 4.7, swimBack: 2.5, turnRate: 3.14 },
    spline: {
      flags: 0,
      timePassed: 0,
      duration: 10,
      id: 1,
      nodes: new Float32Array(new Uint32Array([SNAN, 0x3f800000, NEG_NAN]).buffer),
      finalDestination: [1, NaN, 3],
    },
    all: 1,
    nanBits: { 'movementInfo.x': SNAN, 'movementInfo.z': NEG_NAN, 'speeds.run': SNAN, 'spline.finalDestination[1]': 0x7f800001 },
  };
  const body = encodeBody({
    hasTransport: 0,
    blocks: [
      {
        updateType: 2,
        guid: 0xf130000000000001n,
        objectTypeId: 3,
        movement: m,
        values: PackedValues.of([0, 0, 0, 0, 1 << 1], [SNAN]) /* slot 129: UNIT_FIELD_BOUNDINGRADIUS, a float */,
      },
    ],
  });
  return frame(0xa9, body);
}

/** The frame every warm-up round trips (its float words: 0x7f9f0000, 0xffc00001, 0x7f800001). */
export const NAN_FRAME = nanFrame();

/** Run the warm-up loop; returns the frames that did not come back byte for byte (should be none). */
export function warmUp(rounds = 60_000): { bytes: string[]; json: string[] } {
  const want = toHex(NAN_FRAME);
  const bad = { bytes: [] as string[], json: [] as string[] };
  for (let i = 0; i < rounds; i++) {
    const got = encodePacket(decodePacket(NAN_FRAME));
    if (i % 1000 === 999 && toHex(got) !== want) bad.bytes.push(toHex(got));
  }
  for (let i = 0; i < rounds / 10; i++) {
    const p = decodePacket(NAN_FRAME);
    const again = encodePacket(packetFromJson(JSON.parse(JSON.stringify(packetToJson(p, { size: NAN_FRAME.length - 2 })))));
    if (i % 500 === 499 && toHex(again) !== want) bad.json.push(toHex(again));
  }
  return bad;
}

export { fromHex };
