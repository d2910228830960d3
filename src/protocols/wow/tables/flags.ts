/**
 * Names of the bits of the update flags (§5.2), movement flags (§5.5, vmangos
 * names) and spline flags (§5.8), for the named-flag breakdown of the JSON.
 */

export const UPDATE_FLAG_NAMES: readonly string[] = ['SELF', 'TRANSPORT', 'MELEE_ATTACKING', 'HIGHGUID', 'ALL', 'LIVING', 'HAS_POSITION', 'UNKNOWN7'];

export const MOVE_FLAG_NAMES: readonly string[] = [
  'FORWARD',
  'BACKWARD',
  'STRAFE_LEFT',
  'STRAFE_RIGHT',
  'TURN_LEFT',
  'TURN_RIGHT',
  'PITCH_UP',
  'PITCH_DOWN',
  'WALK_MODE',
  'UNUSED10',
  'LEVITATING',
  'FIXED_Z',
  'ROOT',
  'JUMPING',
  'FALLINGFAR',
  'PENDING_STOP',
  'PENDING_UNSTRAFE',
  'PENDING_FORWARD',
  'PENDING_BACKWARD',
  'PENDING_STR_LEFT',
  'PENDING_STR_RGHT',
  'SWIMMING',
  'SPLINE_ENABLED',
  'MOVED',
  'FLYING',
  'ONTRANSPORT',
  'SPLINE_ELEVATION',
  'UNUSED28',
  'WATERWALKING',
  'SAFE_FALL',
  'HOVER',
  'UNUSED32',
];

export const SPLINE_FLAG_NAMES: readonly string[] = Array.from({ length: 32 }, (_, i) => {
  const known: Record<number, string> = {
    0: 'DONE',
    1: 'FALLING',
    8: 'RUNMODE',
    9: 'FLYING',
    10: 'NO_SPLINE',
    16: 'FINAL_POINT',
    17: 'FINAL_TARGET',
    18: 'FINAL_ANGLE',
    20: 'CYCLIC',
    21: 'ENTER_CYCLE',
    22: 'FROZEN',
  };
  return known[i] ?? `UNKNOWN${i + 1}`;
});

/** The names of the bits set in `word`, lowest first. */
export function flagNames(word: number, names: readonly string[]): string[] {
  const out: string[] = [];
  for (let w = word >>> 0; w !== 0; w &= w - 1) out.push(names[31 - Math.clz32(w & -w)]!);
  return out;
}
