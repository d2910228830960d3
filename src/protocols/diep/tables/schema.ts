/**
 * The field table as data: the JSON shape of `diep-fields-<build>.json` (the
 * reference's companion file) and its compiled form used by the codec, the
 * store and the producer. Another build's table plugs in through
 * `compileFieldTable(json)`; nothing in the codec is specific to one build.
 */

/** Wire encodings of field values (§2 of the reference). */
export type EncodingName = 'vu' | 'vi' | 'f32' | 'vi64' | 'stringNT' | 'entid';

/** Numeric codes for the hot loops. */
export const ENC_VU = 0;
export const ENC_VI = 1;
export const ENC_F32 = 2;
export const ENC_VI64 = 3;
export const ENC_STRING = 4;
export const ENC_ENTID = 5;

export const ENCODING_CODES: Readonly<Record<EncodingName, number>> = {
  vu: ENC_VU,
  vi: ENC_VI,
  f32: ENC_F32,
  vi64: ENC_VI64,
  stringNT: ENC_STRING,
  entid: ENC_ENTID,
};
export const ENCODING_NAMES: readonly EncodingName[] = ['vu', 'vi', 'f32', 'vi64', 'stringNT', 'entid'];

export interface FieldJson {
  index: number;
  groupId: number;
  group: string;
  idInGroup: number;
  name: string;
  encoding: string;
  /** Element count of an array field, null for a scalar. */
  length: number | null;
  default: unknown;
  /** Encoding of the elements inside update element tables, when it differs. */
  updateElementEncoding?: string;
}

export interface GroupJson {
  id: number;
  name: string;
  /** Field indices in id-in-group order. */
  fields: number[];
}

export interface FieldTableJson {
  build: string;
  fieldCount: number;
  groupCount: number;
  groups: GroupJson[];
  fields: FieldJson[];
  flagBits?: Record<string, Record<string, number>>;
  colors?: string[];
}

export interface FieldDef {
  index: number;
  groupId: number;
  group: string;
  idInGroup: number;
  name: string;
  /** `group.field`, the key used in JSON. */
  key: string;
  encoding: EncodingName;
  enc: number;
  /** Element count; 0 for a scalar. */
  length: number;
  /** Encoding code of elements inside update element tables. */
  updateEnc: number;
  default: unknown;
}

export interface GroupDef {
  id: number;
  name: string;
  /** Field indices in id-in-group order. */
  fields: readonly number[];
}

/** A compiled field table: lookups by index for the codec, by name for users. */
export interface FieldTable {
  build: string;
  fieldCount: number;
  groupCount: number;
  fields: readonly FieldDef[];
  groups: readonly GroupDef[];
  /** Per field index: encoding code, array length (0 scalar), update element encoding, group id. */
  fieldEnc: Uint8Array;
  fieldLen: Uint16Array;
  fieldUpdateEnc: Uint8Array;
  fieldGroup: Uint8Array;
  /** Field index by `group.field` key. */
  byKey: ReadonlyMap<string, number>;
  /** Group id by name. */
  groupByName: ReadonlyMap<string, number>;
  flagBits: Readonly<Record<string, Record<string, number>>>;
  /**
   * Per field index: for a flag field (a key of `flagBits`), the name of each bit by
   * position (`bit9` where the table names none); undefined for other fields.
   */
  fieldFlagNames: readonly (readonly string[] | undefined)[];
  colors: readonly string[];
}

/** The names of the bits set in flag value `value` (lowest first), from a field's `fieldFlagNames`. */
export function flagNamesOf(names: readonly string[], value: number): string[] {
  const out: string[] = [];
  let v = value;
  for (let i = 0; v >= 1 && i < 53; i++, v = Math.floor(v / 2)) if (v % 2 === 1) out.push(names[i] ?? `bit${i}`);
  return out;
}

function bad(msg: string): never {
  throw new TypeError(`invalid Diep field table: ${msg}`);
}

function encodingOf(s: unknown, where: string): EncodingName {
  if (typeof s === 'string' && Object.hasOwn(ENCODING_CODES, s)) return s as EncodingName;
  return bad(`${where}: unknown encoding ${JSON.stringify(s)}`);
}

/**
 * Check and compile a field table. Throws a TypeError describing the first problem
 * (indices must be 0..fieldCount-1 exactly once, group ids 0..groupCount-1, and each
 * group's field list must agree with the fields' groupId/idInGroup).
 */
export function compileFieldTable(json: FieldTableJson): FieldTable {
  const fieldCount = json.fieldCount;
  const groupCount = json.groupCount;
  if (!Number.isInteger(fieldCount) || fieldCount < 0 || fieldCount > 65535) bad('fieldCount');
  if (!Number.isInteger(groupCount) || groupCount < 0 || groupCount > 255) bad('groupCount');
  if (!Array.isArray(json.fields) || json.fields.length !== fieldCount) bad('fields must list fieldCount entries');
  if (!Array.isArray(json.groups) || json.groups.length !== groupCount) bad('groups must list groupCount entries');
  const fields: FieldDef[] = new Array(fieldCount);
  const fieldEnc = new Uint8Array(fieldCount);
  const fieldLen = new Uint16Array(fieldCount);
  const fieldUpdateEnc = new Uint8Array(fieldCount);
  const fieldGroup = new Uint8Array(fieldCount);
  const byKey = new Map<string, number>();
  const groupByName = new Map<string, number>();
  const groups: GroupDef[] = new Array(groupCount);
  for (const g of json.groups) {
    if (!Number.isInteger(g.id) || g.id < 0 || g.id >= groupCount || groups[g.id] !== undefined) bad(`group id ${g.id}`);
    groups[g.id] = { id: g.id, name: g.name, fields: Object.freeze([...g.fields]) };
    groupByName.set(g.name, g.id);
  }
  for (const f of json.fields) {
    const i = f.index;
    if (!Number.isInteger(i) || i < 0 || i >= fieldCount || fields[i] !== undefined) bad(`field index ${i}`);
    if (!Number.isInteger(f.groupId) || f.groupId < 0 || f.groupId >= groupCount) bad(`field ${i}: group ${f.groupId}`);
    const encoding = encodingOf(f.encoding, `field ${i}`);
    const updateEncoding = f.updateElementEncoding === undefined ? encoding : encodingOf(f.updateElementEncoding, `field ${i}`);
    const length = f.length ?? 0;
    if (!Number.isInteger(length) || length < 0 || length > 65535) bad(`field ${i}: length`);
    const groupName = groups[f.groupId]!.name;
    const key = `${groupName}.${f.name}`;
    if (byKey.has(key)) bad(`duplicate field name ${key}`);
    byKey.set(key, i);
    fields[i] = {
      index: i,
      groupId: f.groupId,
      group: groupName,
      idInGroup: f.idInGroup,
      name: f.name,
      key,
      encoding,
      enc: ENCODING_CODES[encoding],
      length,
      updateEnc: ENCODING_CODES[updateEncoding],
      default: f.default,
    };
    fieldEnc[i] = ENCODING_CODES[encoding];
    fieldLen[i] = length;
    fieldUpdateEnc[i] = ENCODING_CODES[updateEncoding];
    fieldGroup[i] = f.groupId;
  }
  for (const g of groups) {
    for (const fi of g.fields) {
      const f = fields[fi];
      if (f === undefined || f.groupId !== g.id) bad(`group ${g.name} lists field ${fi} of another group`);
    }
    const count = fields.filter((f) => f.groupId === g.id).length;
    if (count !== g.fields.length) bad(`group ${g.name}: field list does not match the fields' groupId`);
  }
  const fieldFlagNames: (string[] | undefined)[] = new Array(fieldCount).fill(undefined);
  for (const [key, bits] of Object.entries(json.flagBits ?? {})) {
    const f = byKey.get(key);
    if (f === undefined) bad(`flagBits: unknown field ${key}`);
    if (fields[f]!.length !== 0 || (fields[f]!.enc !== ENC_VU && fields[f]!.enc !== ENC_VI)) bad(`flagBits: ${key} is not an integer scalar`);
    const names: string[] = [];
    for (let i = 0; i < 32; i++) names.push(`bit${i}`);
    for (const [name, bit] of Object.entries(bits)) {
      const i = Math.log2(bit);
      if (!Number.isInteger(i) || i < 0 || i > 31) bad(`flagBits: ${key}.${name} = ${bit} is not one bit`);
      names[i] = name;
    }
    fieldFlagNames[f] = names;
  }
  return {
    build: json.build,
    fieldCount,
    groupCount,
    fields,
    groups,
    fieldEnc,
    fieldLen,
    fieldUpdateEnc,
    fieldGroup,
    byKey,
    groupByName,
    flagBits: json.flagBits ?? {},
    fieldFlagNames,
    colors: json.colors ?? [],
  };
}
