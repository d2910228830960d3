/**
 * Map files for the server: the bytes the clients download, their CRC32 and
 * SHA-256 (MAP_CHANGE; a client that has a map with that name and CRC skips
 * the download), and the game layer read from the datafile (solid tiles,
 * spawn points and pickup entities) so the built-in world can place tees on
 * the ground.
 *
 * The datafile reader is total: any bytes give a map or a DecodeError, in
 * bounded time and memory (sizes are checked against the file before use).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { unzlibSync } from 'fflate';
import { DecodeError } from '../../../../core/errors.js';

/** Game-layer tiles (both versions). */
export const TILE_AIR = 0;
export const TILE_SOLID = 1;
export const TILE_DEATH = 2;
export const TILE_NOHOOK = 3;
/** Entity tiles are ENTITY_OFFSET + entity. */
export const ENTITY_OFFSET = 255 - 16 * 4;
export const ENTITY_SPAWN = 1;
export const ENTITY_SPAWN_RED = 2;
export const ENTITY_SPAWN_BLUE = 3;
export const ENTITY_ARMOR = 6;
export const ENTITY_HEALTH = 7;
export const ENTITY_SHOTGUN = 8;
export const ENTITY_GRENADE = 9;
export const ENTITY_NINJA = 10;
export const ENTITY_LASER = 11;

export interface GameLayer {
  width: number;
  height: number;
  /** Game tile index per tile, row by row. */
  tiles: Uint8Array;
}

export interface MapEntity {
  entity: number;
  /** World position (tile centre, 32 units per tile). */
  x: number;
  y: number;
}

export interface ServerMap {
  /** The name sent in MAP_CHANGE (file name without `.map`). */
  name: string;
  data: Uint8Array;
  crc: number;
  sha256: Uint8Array;
  layer: GameLayer;
  entities: MapEntity[];
}

/** Largest map file accepted (the games: 32 MiB order). */
export const MAX_MAP_SIZE = 64 << 20;
/** Largest game layer accepted, in tiles. */
export const MAX_LAYER_TILES = 4 << 20;

/** Where the Debian packages put their maps, per version. */
export function mapDirs(version: '0.6' | '0.7' | 'ddnet'): string[] {
  return version === '0.7' ? ['/usr/share/games/teeworlds/data/maps'] : ['/usr/share/games/ddnet/data/maps', '/usr/share/games/teeworlds/data/maps'];
}

/** Resolve `--map NAME|FILE`: a path to a `.map` file, or a map name in the version's data directory. */
export function resolveMap(nameOrFile: string, version: '0.6' | '0.7' | 'ddnet'): string {
  if (nameOrFile.endsWith('.map') || nameOrFile.includes('/')) return nameOrFile;
  for (const d of mapDirs(version)) {
    const p = join(d, `${nameOrFile}.map`);
    if (existsSync(p)) return p;
  }
  throw new Error(`map ${JSON.stringify(nameOrFile)} not found in ${mapDirs(version).join(', ')} (install teeworlds-data / ddnet-data, or pass --map FILE)`);
}

export function loadMapFile(path: string): ServerMap {
  const data = new Uint8Array(readFileSync(path));
  return parseMap(basename(path).replace(/\.map$/, ''), data);
}

export function parseMap(name: string, data: Uint8Array): ServerMap {
  if (data.length > MAX_MAP_SIZE) throw new DecodeError(0, 'map', `at most ${MAX_MAP_SIZE} bytes`, `${data.length}`);
  const layer = readGameLayer(data);
  const entities: MapEntity[] = [];
  for (let y = 0; y < layer.height; y++) {
    for (let x = 0; x < layer.width; x++) {
      const t = layer.tiles[y * layer.width + x]!;
      if (t > ENTITY_OFFSET) entities.push({ entity: t - ENTITY_OFFSET, x: x * 32 + 16, y: y * 32 + 16 });
    }
  }
  return {
    name,
    data,
    crc: crc32(data) | 0,
    sha256: new Uint8Array(createHash('sha256').update(data).digest()),
    layer,
    entities,
  };
}

/** Read the game layer of a Teeworlds datafile (version 3 or 4). */
export function readGameLayer(f: Uint8Array): GameLayer {
  const dv = new DataView(f.buffer, f.byteOffset, f.byteLength);
  const i32 = (at: number, what: string): number => {
    if (at < 0 || at + 4 > f.length) throw new DecodeError(at, what, '4 bytes', 'end of file');
    return dv.getInt32(at, true);
  };
  if (f.length < 36) throw new DecodeError(0, 'header', '36 bytes of datafile header', `${f.length}`);
  const magic = String.fromCharCode(f[0]!, f[1]!, f[2]!, f[3]!);
  if (magic !== 'DATA' && magic !== 'ATAD') throw new DecodeError(0, 'header.magic', '"DATA"', JSON.stringify(magic));
  const version = i32(4, 'header.version');
  if (version !== 3 && version !== 4) throw new DecodeError(4, 'header.version', '3 or 4', `${version}`);
  const numItemTypes = i32(16, 'header.numItemTypes');
  const numItems = i32(20, 'header.numItems');
  const numData = i32(24, 'header.numData');
  const itemSize = i32(28, 'header.itemSize');
  const dataSize = i32(32, 'header.dataSize');
  const counts = [numItemTypes, numItems, numData, itemSize, dataSize];
  if (counts.some((c) => c < 0 || c > f.length)) throw new DecodeError(16, 'header', 'counts within the file', counts.join(','));
  let p = 36;
  const typesAt = p;
  p += numItemTypes * 12;
  const itemOffsetsAt = p;
  p += numItems * 4;
  const dataOffsetsAt = p;
  p += numData * 4;
  const dataSizesAt = p;
  if (version === 4) p += numData * 4;
  const itemsAt = p;
  const dataAt = itemsAt + itemSize;
  if (dataAt + dataSize > f.length) throw new DecodeError(dataAt, 'data', `${dataSize} bytes of data`, `${f.length - dataAt}`);

  // Items of type 5 (MAPITEMTYPE_LAYER).
  let layerStart = 0;
  let layerNum = 0;
  for (let i = 0; i < numItemTypes; i++) {
    if (i32(typesAt + i * 12, `itemTypes[${i}].type`) === 5) {
      layerStart = i32(typesAt + i * 12 + 4, `itemTypes[${i}].start`);
      layerNum = i32(typesAt + i * 12 + 8, `itemTypes[${i}].num`);
    }
  }
  if (layerStart < 0 || layerNum < 0 || layerStart + layerNum > numItems)
    throw new DecodeError(typesAt, 'itemTypes', 'layer items within the item table', `${layerStart}+${layerNum}`);
  for (let i = layerStart; i < layerStart + layerNum; i++) {
    const off = i32(itemOffsetsAt + i * 4, `itemOffsets[${i}]`);
    if (off < 0 || off + 8 > itemSize) throw new DecodeError(itemOffsetsAt + i * 4, `itemOffsets[${i}]`, 'an offset within the items', `${off}`);
    const at = itemsAt + off;
    const size = i32(at + 4, `items[${i}].size`);
    if (size < 0 || off + 8 + size > itemSize) throw new DecodeError(at + 4, `items[${i}].size`, 'a size within the items', `${size}`);
    const d = at + 8;
    if (size < 15 * 4) continue;
    const type = i32(d + 4, `items[${i}].type`);
    const flags = i32(d + 24, `items[${i}].tilemapFlags`);
    if (type !== 2 || (flags & 1) === 0) continue;
    const tmVersion = i32(d + 12, `items[${i}].tilemapVersion`);
    const width = i32(d + 16, `items[${i}].width`);
    const height = i32(d + 20, `items[${i}].height`);
    const dataIndex = i32(d + 56, `items[${i}].data`);
    if (width <= 0 || height <= 0 || width * height > MAX_LAYER_TILES)
      throw new DecodeError(d + 16, `items[${i}].size`, `a layer of at most ${MAX_LAYER_TILES} tiles`, `${width}x${height}`);
    if (dataIndex < 0 || dataIndex >= numData) throw new DecodeError(d + 56, `items[${i}].data`, `a data index below ${numData}`, `${dataIndex}`);
    const start = i32(dataOffsetsAt + dataIndex * 4, `dataOffsets[${dataIndex}]`);
    const end = dataIndex + 1 < numData ? i32(dataOffsetsAt + (dataIndex + 1) * 4, `dataOffsets[${dataIndex + 1}]`) : dataSize;
    if (start < 0 || end < start || end > dataSize)
      throw new DecodeError(dataOffsetsAt + dataIndex * 4, `dataOffsets[${dataIndex}]`, 'a range within the data', `${start}..${end}`);
    const want = width * height * 4;
    let raw: Uint8Array;
    if (version === 4) {
      const usize = i32(dataSizesAt + dataIndex * 4, `dataSizes[${dataIndex}]`);
      if (usize < 0 || usize > want) throw new DecodeError(dataSizesAt + dataIndex * 4, `dataSizes[${dataIndex}]`, `at most ${want}`, `${usize}`);
      try {
        raw = unzlibSync(f.subarray(dataAt + start, dataAt + end), { out: new Uint8Array(usize) });
      } catch (e) {
        throw new DecodeError(dataAt + start, `data[${dataIndex}]`, 'zlib data', e instanceof Error ? e.message : String(e));
      }
    } else {
      raw = f.subarray(dataAt + start, dataAt + end);
    }
    const tiles = new Uint8Array(width * height);
    if (raw.length >= want) {
      for (let t = 0; t < width * height; t++) tiles[t] = raw[t * 4]!;
    } else if (tmVersion >= 4) {
      // 0.7: run-length encoded tiles (the "skip" byte repeats a tile).
      let t = 0;
      for (let q = 0; q + 4 <= raw.length && t < tiles.length; q += 4) {
        const idx = raw[q]!;
        const skip = raw[q + 2]!;
        for (let k = 0; k <= skip && t < tiles.length; k++) tiles[t++] = idx;
      }
      if (t < tiles.length) throw new DecodeError(dataAt + start, `data[${dataIndex}]`, `${tiles.length} tiles`, `${t}`);
    } else {
      throw new DecodeError(dataAt + start, `data[${dataIndex}]`, `${want} bytes of tiles`, `${raw.length}`);
    }
    return { width, height, tiles };
  }
  throw new DecodeError(itemsAt, 'layers', 'a game layer', 'none');
}
