/**
 * The JSON form of Diep.io packets: what the CLI prints and what `encode` reads.
 *
 * - 0x00: `{type: 'Update', tick, deletions: [{hash, id}], updates: [{id, hash, changed}],
 *   creations: [{id, hash, groups, fields}]}` as in the fixtures' `decoded` objects
 *   (`changed` maps `group.field` to the value, or for an array field to an object from
 *   element index to value; `fields` maps every field of the groups, arrays complete).
 *   When the wire order is not "all updates, then all creations", the form is
 *   `{type, tick, deletions, upcreates: [{kind: 'update' | 'creation', ...}]}` instead.
 * - float32 values are numbers; -0, infinities and NaNs are `"f32:0xXXXXXXXX"` (the bits).
 * - byte strings (0x02 block, unknown bodies) are lowercase hex.
 */
import { EncodeError, fromHex, toHex, excerpt, shortestF32 } from '../../core/index.js';
import { ENC_F32, flagNamesOf, type FieldTable } from './tables/schema.js';
import { FIELDS_6F59094D } from './tables/index.js';
import { F32Bits, INPUT_FLAGS } from './types.js';
import type { ClientboundPacket, Creation, Change, ElementChanges, EntityRef, Scalar, ServerboundPacket, Upcreate } from './types.js';
import { f32BitsOf, f32FromBits } from './primitives.js';

type Json = unknown;
type Obj = Record<string, Json>;

/**
 * JSON form of a float32 value: the shortest decimal that reads back to the same
 * float32 (`0.72`, not `0.7200000286102295`); -0, infinities and NaNs as their bits.
 */
export function f32ToJson(v: number | F32Bits): number | string {
  if (v instanceof F32Bits || !Number.isFinite(v) || Object.is(v, -0)) {
    const bits = f32BitsOf(v);
    return `f32:0x${bits.toString(16).padStart(8, '0')}`;
  }
  return shortestF32(v);
}

/** Parse the JSON form of a float32 value. */
export function f32FromJson(v: Json, path: string): number | F32Bits {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const m = /^f32:0x([0-9a-fA-F]{8})$/.exec(v);
    if (m) return f32FromBits(parseInt(m[1]!, 16));
  }
  throw new EncodeError(path, `expected a number or "f32:0xXXXXXXXX", got ${excerpt(v)}`);
}

function scalarToJson(enc: number, v: Scalar): Json {
  if (enc === ENC_F32) return f32ToJson(v as number | F32Bits);
  if (v !== null && typeof v === 'object') {
    if (v instanceof F32Bits) return f32ToJson(v);
    return { hash: v.hash, id: v.id };
  }
  return v;
}

function scalarFromJson(enc: number, v: Json, path: string): Scalar {
  if (enc === ENC_F32) return f32FromJson(v, path);
  if (v === null || typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'object' && !Array.isArray(v)) return refFromJson(v, path);
  throw new EncodeError(path, `unexpected value ${excerpt(v)}`);
}

function creationToJson(c: Creation, table: FieldTable, withKind: boolean): Obj {
  const fields: Obj = {};
  for (let f = 0; f < table.fieldCount; f++) {
    const v = c.values[f];
    if (v === undefined) continue;
    const def = table.fields[f]!;
    fields[def.key] = Array.isArray(v) ? v.map((x) => scalarToJson(def.enc, x)) : scalarToJson(def.enc, v);
  }
  const groups = c.groups.map((g) => table.groups[g]?.name ?? g);
  const o: Obj = withKind ? { kind: 'creation', id: c.id, hash: c.hash, groups, fields } : { id: c.id, hash: c.hash, groups, fields };
  const names = flagNamesJson(table, c.values, (f) => f);
  if (names !== undefined) o.flagNames = names;
  return o;
}

/**
 * The named breakdown of the flag fields present (`{"style.flags": ["isVisible", "isFlashing"]}`),
 * in field order; undefined when there is none. Derived from the values (encode ignores it).
 */
function flagNamesJson(table: FieldTable, values: readonly unknown[], fieldOf: (i: number) => number): Obj | undefined {
  let out: Obj | undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'number') continue;
    const f = fieldOf(i);
    const names = table.fieldFlagNames[f];
    if (names === undefined) continue;
    out ??= {};
    out[table.fields[f]!.key] = flagNamesOf(names, v);
  }
  return out;
}

function changeToJson(c: Change, table: FieldTable, withKind: boolean): Obj {
  const changed: Obj = {};
  for (let i = 0; i < c.fields.length; i++) {
    const def = table.fields[c.fields[i]!]!;
    const v = c.values[i]!;
    if (def.length === 0) changed[def.key] = scalarToJson(def.enc, v as Scalar);
    else {
      const ec = v as ElementChanges;
      const o: Obj = {};
      for (let k = 0; k < ec.indices.length; k++) o[String(ec.indices[k])] = scalarToJson(def.updateEnc, ec.values[k]!);
      changed[def.key] = o;
    }
  }
  const o: Obj = withKind ? { kind: 'update', id: c.id, hash: c.hash, changed } : { id: c.id, hash: c.hash, changed };
  const names = flagNamesJson(table, c.values, (i) => c.fields[i]!);
  if (names !== undefined) o.flagNames = names;
  return o;
}

/** JSON form of one upcreate (with its `kind`). */
export function upcreateToJson(u: Upcreate, table: FieldTable = FIELDS_6F59094D): Obj {
  return u.kind === 'creation' ? creationToJson(u, table, true) : changeToJson(u, table, true);
}

/** JSON form of a clientbound packet. */
export function clientboundToJson(p: ClientboundPacket, table: FieldTable = FIELDS_6F59094D): Obj {
  switch (p.type) {
    case 'Update': {
      const deletions = p.deletions.map((d) => ({ hash: d.hash, id: d.id }));
      let split = true;
      let seenCreation = false;
      for (const u of p.upcreates) {
        if (u.kind === 'creation') seenCreation = true;
        else if (seenCreation) {
          split = false;
          break;
        }
      }
      if (split) {
        const updates: Obj[] = [];
        const creations: Obj[] = [];
        for (const u of p.upcreates) {
          if (u.kind === 'creation') creations.push(creationToJson(u, table, false));
          else updates.push(changeToJson(u, table, false));
        }
        return { type: 'Update', tick: p.tick, deletions, updates, creations };
      }
      return { type: 'Update', tick: p.tick, deletions, upcreates: p.upcreates.map((u) => upcreateToJson(u, table)) };
    }
    case 'Compressed':
      return { type: 'Compressed', size: p.size, block: toHex(p.block), inner: clientboundToJson(p.inner, table) };
    case 'Notification':
      return { type: 'Notification', text: p.text, color: p.color, duration: f32ToJson(p.duration), identifier: p.identifier };
    case 'Unknown':
      return { type: 'Unknown', header: p.header, body: toHex(p.body) };
    default:
      return { ...p };
  }
}

/** JSON form of a serverbound packet. */
export function serverboundToJson(p: ServerboundPacket): Obj {
  switch (p.type) {
    case 'Input': {
      const flagNames = Object.entries(INPUT_FLAGS)
        .filter(([, bit]) => (p.flags & bit) !== 0)
        .map(([name]) => name);
      return { type: 'Input', flags: p.flags, flagNames, mouseX: f32ToJson(p.mouseX), mouseY: f32ToJson(p.mouseY) };
    }
    case 'Unknown':
      return { type: 'Unknown', header: p.header, body: toHex(p.body) };
    default:
      return { ...p };
  }
}

// --- from JSON ----------------------------------------------------------------

function obj(v: Json, path: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new EncodeError(path, `expected an object, got ${excerpt(v)}`);
  return v as Obj;
}

function arr(v: Json, path: string): Json[] {
  if (!Array.isArray(v)) throw new EncodeError(path, `expected an array, got ${excerpt(v)}`);
  return v;
}

function num(v: Json, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new EncodeError(path, `expected an integer, got ${excerpt(v)}`);
  return v;
}

function str(v: Json, path: string): string {
  if (typeof v !== 'string') throw new EncodeError(path, `expected a string, got ${excerpt(v)}`);
  return v;
}

function hexOf(v: Json, path: string): Uint8Array {
  try {
    return fromHex(str(v, path));
  } catch (e) {
    if (e instanceof EncodeError) throw e;
    throw new EncodeError(path, 'bad hex');
  }
}

function refFromJson(v: Json, path: string): EntityRef {
  const o = obj(v, path);
  return { hash: num(o.hash, `${path}.hash`), id: num(o.id, `${path}.id`) };
}

function fieldIndex(table: FieldTable, key: string, path: string): number {
  const f = table.byKey.get(key);
  if (f === undefined) throw new EncodeError(path, `unknown field ${excerpt(key)}`);
  return f;
}

function creationFromJson(v: Json, table: FieldTable, path: string): Creation {
  const o = obj(v, path);
  const groups = arr(o.groups, `${path}.groups`).map((g, i) => {
    if (typeof g === 'number') return g;
    const id = table.groupByName.get(str(g, `${path}.groups[${i}]`));
    if (id === undefined) throw new EncodeError(`${path}.groups[${i}]`, `unknown group ${excerpt(g)}`);
    return id;
  });
  const values: (Scalar | Scalar[] | undefined)[] = new Array(table.fieldCount);
  const fields = obj(o.fields, `${path}.fields`);
  for (const [key, val] of Object.entries(fields)) {
    const p = `${path}.fields.${key}`;
    const f = fieldIndex(table, key, p);
    const def = table.fields[f]!;
    if (!groups.includes(def.groupId)) throw new EncodeError(p, `field of group ${def.group}, which the creation does not list`);
    values[f] = def.length === 0 ? scalarFromJson(def.enc, val, p) : arr(val, p).map((x, k) => scalarFromJson(def.enc, x, `${p}[${k}]`));
  }
  return { kind: 'creation', id: num(o.id, `${path}.id`), hash: num(o.hash, `${path}.hash`), groups, values };
}

function changeFromJson(v: Json, table: FieldTable, path: string): Change {
  const o = obj(v, path);
  const changed = obj(o.changed, `${path}.changed`);
  const pairs: [number, Scalar | ElementChanges][] = [];
  for (const [key, val] of Object.entries(changed)) {
    const p = `${path}.changed.${key}`;
    const f = fieldIndex(table, key, p);
    const def = table.fields[f]!;
    if (def.length === 0) pairs.push([f, scalarFromJson(def.enc, val, p)]);
    else {
      const eo = obj(val, p);
      const els = Object.entries(eo).map(([k, x]): [number, Scalar] => {
        if (!/^(0|[1-9]\d*)$/.test(k)) throw new EncodeError(`${p}.${k}`, 'element keys must be indices');
        return [Number(k), scalarFromJson(def.updateEnc, x, `${p}.${k}`)];
      });
      els.sort((a, b) => a[0] - b[0]);
      pairs.push([f, { indices: els.map((e) => e[0]), values: els.map((e) => e[1]) }]);
    }
  }
  pairs.sort((a, b) => a[0] - b[0]);
  return { kind: 'update', id: num(o.id, `${path}.id`), hash: num(o.hash, `${path}.hash`), fields: pairs.map((p) => p[0]), values: pairs.map((p) => p[1]) };
}

/** Parse the JSON form of a clientbound packet. Fixture `decoded` objects (no `type`, with `tick`) are updates. */
export function clientboundFromJson(v: Json, table: FieldTable = FIELDS_6F59094D): ClientboundPacket {
  const o = obj(v, '');
  if (o.type === 'Compressed') {
    const inner = obj(o.inner, 'inner');
    if (inner.type === 'Compressed') throw new EncodeError('inner', 'a 0x02 packet cannot hold another 0x02');
  }
  const type = o.type === undefined && 'tick' in o ? 'Update' : o.type;
  switch (type) {
    case 'Update': {
      const deletions = arr(o.deletions ?? [], 'deletions').map((d, i) => refFromJson(d, `deletions[${i}]`));
      let upcreates: Upcreate[];
      if (o.upcreates !== undefined) {
        upcreates = arr(o.upcreates, 'upcreates').map((u, i) => {
          const uo = obj(u, `upcreates[${i}]`);
          if (uo.kind === 'creation') return creationFromJson(uo, table, `upcreates[${i}]`);
          if (uo.kind === 'update') return changeFromJson(uo, table, `upcreates[${i}]`);
          throw new EncodeError(`upcreates[${i}].kind`, `must be "creation" or "update"`);
        });
      } else {
        upcreates = [
          ...arr(o.updates ?? [], 'updates').map((u, i) => changeFromJson(u, table, `updates[${i}]`)),
          ...arr(o.creations ?? [], 'creations').map((u, i) => creationFromJson(u, table, `creations[${i}]`)),
        ];
      }
      return { type: 'Update', tick: num(o.tick, 'tick'), deletions, upcreates };
    }
    case 'OutdatedClient':
      return { type: 'OutdatedClient', build: str(o.build, 'build') };
    case 'Compressed':
      return {
        type: 'Compressed',
        size: o.size === undefined ? 0 : num(o.size, 'size'),
        block: o.block === undefined ? new Uint8Array(0) : hexOf(o.block, 'block'),
        inner: clientboundFromJson(o.inner, table),
      };
    case 'Notification':
      return {
        type: 'Notification',
        text: str(o.text, 'text'),
        color: num(o.color, 'color'),
        duration: f32FromJson(o.duration, 'duration'),
        identifier: str(o.identifier ?? '', 'identifier'),
      };
    case 'ServerInfo': {
      const p: ClientboundPacket = { type: 'ServerInfo', gamemode: str(o.gamemode, 'gamemode'), host: str(o.host ?? '', 'host') };
      if (o.region !== undefined) p.region = str(o.region, 'region');
      return p;
    }
    case 'Heartbeat':
      return { type: 'Heartbeat' };
    case 'Accept':
      return o.accessLevel === undefined ? { type: 'Accept' } : { type: 'Accept', accessLevel: num(o.accessLevel, 'accessLevel') };
    case 'PlayerCount':
      return { type: 'PlayerCount', count: num(o.count, 'count') };
    case 'Unknown':
      return { type: 'Unknown', header: num(o.header, 'header'), body: hexOf(o.body ?? '', 'body') };
    default:
      throw new EncodeError('type', `unknown clientbound packet type ${excerpt(type)}`);
  }
}

/** Parse the JSON form of a serverbound packet. */
export function serverboundFromJson(v: Json): ServerboundPacket {
  const o = obj(v, '');
  switch (o.type) {
    case 'Init': {
      const p: ServerboundPacket = { type: 'Init', build: str(o.build, 'build'), password: str(o.password ?? '', 'password') };
      if (o.partyCode !== undefined) p.partyCode = str(o.partyCode, 'partyCode');
      if (o.playerToken !== undefined) p.playerToken = str(o.playerToken, 'playerToken');
      if (o.debug !== undefined) p.debug = num(o.debug, 'debug');
      return p;
    }
    case 'Input':
      return { type: 'Input', flags: num(o.flags, 'flags'), mouseX: f32FromJson(o.mouseX, 'mouseX'), mouseY: f32FromJson(o.mouseY, 'mouseY') };
    case 'Spawn':
      return { type: 'Spawn', name: str(o.name, 'name') };
    case 'StatUpgrade':
      return o.limit === undefined
        ? { type: 'StatUpgrade', rawStat: num(o.rawStat, 'rawStat') }
        : { type: 'StatUpgrade', rawStat: num(o.rawStat, 'rawStat'), limit: num(o.limit, 'limit') };
    case 'TankUpgrade':
      return { type: 'TankUpgrade', rawTank: num(o.rawTank, 'rawTank') };
    case 'Heartbeat':
      return { type: 'Heartbeat' };
    case 'Command':
      return { type: 'Command', command: str(o.command, 'command'), args: arr(o.args ?? [], 'args').map((a, i) => str(a, `args[${i}]`)) };
    case 'ModifiedClient':
    case 'LeaveDeathScreen':
    case 'TakeTank':
      return { type: o.type };
    case 'Unknown':
      return { type: 'Unknown', header: num(o.header, 'header'), body: hexOf(o.body ?? '', 'body') };
    default:
      throw new EncodeError('type', `unknown serverbound packet type ${excerpt(o.type)}`);
  }
}
