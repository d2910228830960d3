/**
 * Field-table lookups (§6.3): which field covers a slot for an object type,
 * fields by name, object types, and the high-guid hint of §3.2.
 */
import { FIELDS, OBJECT_TYPES, VISIBILITY, type FieldDef, type ObjectTypeDef } from './tables/update-fields.js';

export { FIELDS, OBJECT_TYPES, VISIBILITY };
export type { FieldDef, ObjectTypeDef, FieldType } from './tables/update-fields.js';

/** Per type id: slot → index into FIELDS, -1 where no field covers the slot. */
const SLOT_FIELD: Int16Array[] = [];
/** Per type id: name (and alias) → field. */
const BY_NAME: Map<string, FieldDef>[] = [];
/** Per type id: visibility bits per slot. */
const SLOT_VIS: Uint16Array[] = [];

for (const t of OBJECT_TYPES) {
  const slots = new Int16Array(t.valuesCount).fill(-1);
  const vis = new Uint16Array(t.valuesCount);
  const names = new Map<string, FieldDef>();
  FIELDS.forEach((f, i) => {
    if (!t.owners.includes(f.owner)) return;
    for (let s = f.index; s < f.index + f.size && s < t.valuesCount; s++) {
      slots[s] = i;
      vis[s] = f.visibility;
    }
    names.set(f.name, f);
    for (const a of f.aliases ?? []) names.set(a, f);
  });
  SLOT_FIELD[t.typeId] = slots;
  SLOT_VIS[t.typeId] = vis;
  BY_NAME[t.typeId] = names;
}

/** The object type with this id (0 … 7), or undefined. */
export function objectType(typeId: number): ObjectTypeDef | undefined {
  return OBJECT_TYPES[typeId];
}

/** Number of slots of a type (0 for an unknown type). */
export function valuesCount(typeId: number): number {
  return OBJECT_TYPES[typeId]?.valuesCount ?? 0;
}

/** The field covering `slot` for objects of `typeId`, or undefined (unknown type, padding gap, or slot past the end). */
export function fieldAt(typeId: number, slot: number): FieldDef | undefined {
  const s = SLOT_FIELD[typeId];
  if (s === undefined || slot < 0 || slot >= s.length) return undefined;
  const i = s[slot]!;
  return i < 0 ? undefined : FIELDS[i];
}

/** A field of `typeId`'s chain by name or alias. */
export function fieldByName(typeId: number, name: string): FieldDef | undefined {
  return BY_NAME[typeId]?.get(name);
}

/** Visibility bits of each slot of a type (length = values count). */
export function slotVisibility(typeId: number): Uint16Array | undefined {
  return SLOT_VIS[typeId];
}

/** Name of a slot for display: `UNIT_FIELD_HEALTH`, `OBJECT_FIELD_GUID[1]`, or `slot 1300` when no field covers it. */
export function slotName(typeId: number | undefined, slot: number): string {
  const f = typeId === undefined ? undefined : fieldAt(typeId, slot);
  if (f === undefined) return `slot${slot}`;
  return f.size === 1 ? f.name : `${f.name}[${slot - f.index}]`;
}

/** Object type id hinted by a guid's high 16 bits (§3.2): a fallback for inspection only. */
export function typeIdFromGuid(guid: bigint): number | undefined {
  const high = Number(guid >> 48n);
  switch (high) {
    case 0x0000:
      return guid === 0n ? undefined : 4;
    case 0x4000:
      return 1;
    case 0xf110:
    case 0xf120:
    case 0x1fc0:
      return 5;
    case 0xf130:
    case 0xf140:
      return 3;
    case 0xf100:
      return 6;
    case 0xf101:
      return 7;
    default:
      return undefined;
  }
}

/** `0x` + 16 hex digits. */
export function guidHex(guid: bigint): string {
  return `0x${guid.toString(16).padStart(16, '0')}`;
}

/** Per type id: for each slot of a 64-bit (guid) field, the slot holding its other half; -1 elsewhere. */
const PARTNER: Int16Array[] = [];
for (const t of OBJECT_TYPES) {
  const p = new Int16Array(t.valuesCount).fill(-1);
  for (let s = 0; s < t.valuesCount; s++) {
    const f = fieldAt(t.typeId, s);
    if (f !== undefined && f.type === 'guid') {
      const other = f.index + ((s - f.index) ^ 1);
      if (other < f.index + f.size && other < t.valuesCount) p[s] = other;
    }
  }
  PARTNER[t.typeId] = p;
}

/** For each slot of a type: the other half of its 64-bit field, or -1. */
export function guidPartners(typeId: number): Int16Array | undefined {
  return PARTNER[typeId];
}
