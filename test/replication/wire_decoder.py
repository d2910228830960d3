#!/usr/bin/env python3
"""Independent decoder for the tickwire replication wire format, version 1.

Written from docs/replication-wire.md alone, to check that the page is a
complete definition of the bytes.  Python 3.11, standard library only.

Usage:
    python3 wire_decoder.py < corpus.json > result.json
        Decode every stream of a corpus (made by test/replication/wire-corpus.ts)
        and print what this decoder's client reports after each step.

    python3 wire_decoder.py --compare corpus.json [corpus2.json ...]
        Decode and compare with the reference steps in the corpus; print the
        first mismatches per stream and per-field-group counts.  Exit status 1
        when an essential field (error-or-not, ignored, tick, baseTick,
        deferred, state, ack) differs.

Where the page had to be interpreted, the code says "SPEC:".  The first
version of this decoder found the points below missing from the page, and
took them from the reference's behaviour; the page now states each of them
(history floor and check order in "Client algorithm", the report in "What the
client reports", the bundle's consecutive parts in "Bundle"):

  * history floor: applying a state packet with a baseline drops the history
    older than that baseline (the page only says a client "may"); full states
    and ignored packets do not move it; a bundle moves it to its first part's
    baseline even when that part was skipped (a part after the first must be
    of the next tick against the tick before it, so that baseline is never past
    the newest applied tick);
  * header order: magic, hash, tick, baseAgo, then the old and
    missing-baseline checks, and only then deferred, count and the bound
    "count ≤ 4 × bytes left" (an old packet truncated in count is ignored, an
    old bundle part with a bad count is skipped);
  * an ignored packet reports deferred 0;
  * a bundle reports the last applied part's tick and deferred, and the FIRST
    APPLIED part's baseline as baseTick; a bundle of which no part applied
    reports its last part's tick, baseline and reason;
  * spawned / changed / despawned are the difference between the current
    state before and after (by raw value), where a renewal or a change of type
    counts as despawned + spawned; for a bundle, the net effect over its parts.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, field as dc_field
from decimal import Decimal
from typing import Any

MAGIC_STATE = 0xB1
MAGIC_ACK = 0xB2
MAGIC_BUNDLE = 0xB3

# SPEC: "W ≥ the server's baseline window; default 32 on both sides".
HISTORY_WINDOW = 32

U32 = 1 << 32
U64 = 1 << 64
VARINT_FIELD_MAX = (1 << 53) - 1


class DecodeError(Exception):
    """The packet is rejected; the client state is left unchanged."""


# ---------------------------------------------------------------------------
# Conventions: varint, bit stream, zigzag, len-coded values, Elias gamma
# ---------------------------------------------------------------------------

class ByteReader:
    def __init__(self, data: bytes, pos: int = 0):
        self.data = data
        self.pos = pos

    def left(self) -> int:
        return len(self.data) - self.pos

    def byte(self, what: str) -> int:
        if self.pos >= len(self.data):
            raise DecodeError(f"at byte {self.pos} in {what}: expected 1 byte, found end of input")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def u32le(self, what: str) -> int:
        if self.left() < 4:
            raise DecodeError(f"at byte {self.pos} in {what}: expected 4 bytes, found {self.left()} left")
        v = int.from_bytes(self.data[self.pos:self.pos + 4], "little")
        self.pos += 4
        return v

    def varint(self, what: str) -> int:
        """Unsigned LEB128, at most 5 bytes, value < 2^32.

        SPEC: silent on non-minimal encodings (e.g. 80 00 for 0); accepted here."""
        value = 0
        for i in range(5):
            if self.pos >= len(self.data):
                raise DecodeError(f"at byte {self.pos} in {what}: varint truncated")
            b = self.data[self.pos]
            self.pos += 1
            if i == 4 and b & 0xF0:
                # "the 5th byte may only use its low 4 bits" (so no continuation bit either)
                raise DecodeError(f"at byte {self.pos - 1} in {what}: varint exceeds 2^32 - 1")
            value |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                return value
        raise DecodeError(f"at byte {self.pos} in {what}: varint longer than 5 bytes")  # unreachable


class BitReader:
    """Bit k is bit (k & 7) of byte (k >> 3); an n-bit value is LSB first."""

    def __init__(self, data: bytes, start_byte: int):
        self.data = data
        self.pos = start_byte * 8
        self.end = len(data) * 8
        self.what = ""

    def left(self) -> int:
        return self.end - self.pos

    def read(self, n: int) -> int:
        if n == 0:
            return 0
        if self.left() < n:
            raise DecodeError(f"at byte {self.pos >> 3} in {self.what}: expected {n} more bits, found {self.left()} left")
        value = 0
        for i in range(n):
            k = self.pos + i
            value |= ((self.data[k >> 3] >> (k & 7)) & 1) << i
        self.pos += n
        return value

    def bit(self) -> int:
        return self.read(1)

    def gamma(self) -> int:
        """Elias gamma of n >= 1, n < 2^32."""
        zeros = 0
        while True:
            if self.left() == 0:
                raise DecodeError(f"at byte {self.pos >> 3} in {self.what}: gamma code runs to the end")
            if self.read(1):
                break
            zeros += 1
            if zeros > 31:
                raise DecodeError(f"at byte {self.pos >> 3} in {self.what}: gamma code of 2^32 or more")
        return (1 << zeros) | self.read(zeros)

    def len_coded(self, p: int, m: int) -> int:
        """len-coded z >= 1: L-1 in P bits (reject L > M), then the L-1 low bits."""
        length = self.read(p) + 1
        if length > m:
            raise DecodeError(f"at byte {self.pos >> 3} in {self.what}: length {length} > {m} bits")
        return (1 << (length - 1)) | self.read(length - 1)


def unzigzag(z: int) -> int:
    return z >> 1 if z & 1 == 0 else -((z + 1) >> 1)


def bit_length(n: int) -> int:
    return n.bit_length() if n > 0 else 0


def write_varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def js_round(x: float) -> int:
    # SPEC: "round" is not defined; JavaScript's Math.round (half up) is assumed.
    return math.floor(x + 0.5)


# ---------------------------------------------------------------------------
# Schema and its hash
# ---------------------------------------------------------------------------

INT_KINDS = {
    # kind: (bits, signed, P)
    "u8": (8, False, 3), "i8": (8, True, 3),
    "u16": (16, False, 4), "i16": (16, True, 4),
    "u32": (32, False, 5), "i32": (32, True, 5),
    "ref": (32, False, 5),
}


@dataclass
class Field:
    name: str | None
    kind: str
    min: float = 0
    max: float = 0
    step: float = 1
    max_length: int = 0
    element: "Field | None" = None
    owner: bool = False
    steps: int = 0  # S for quantized

    @staticmethod
    def from_json(o: dict) -> "Field":
        f = Field(name=o.get("name"), kind=o["kind"])
        if f.kind == "quantized":
            f.min, f.max, f.step = o["min"], o["max"], o["step"]
            f.steps = js_round((f.max - f.min) / f.step)
        if f.kind in ("string", "bytes", "array"):
            f.max_length = o["maxLength"]
        if f.kind == "array":
            f.element = Field.from_json(o["element"])
        f.owner = bool(o.get("owner", False))
        return f

    def default(self) -> Any:
        if self.kind == "quantized":
            return min(max(js_round((0 - self.min) / self.step), 0), self.steps)
        if self.kind in ("string", "bytes"):
            return b""
        if self.kind == "array":
            return ()
        return 0  # bool, integers, varint, ref, f32, f64 (as one 64-bit integer)


@dataclass
class EntityType:
    name: str
    fields: list[Field]


@dataclass
class Schema:
    json: dict
    types: list[EntityType]
    hash: int

    @staticmethod
    def from_json(o: dict) -> "Schema":
        types = [EntityType(t["name"], [Field.from_json(f) for f in t["fields"]]) for t in o["entities"]]
        return Schema(o, types, schema_hash(o))


def js_number(x: float | int) -> str:
    """A number as JavaScript's JSON.stringify prints it (ECMAScript Number::toString)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if x == 0:
        return "0"
    # Shortest round-trip digits (Python's repr agrees with JavaScript's),
    # then JavaScript's choice between plain and exponent notation.
    _, digits, exp = Decimal(repr(abs(x))).normalize().as_tuple()
    ds = "".join(map(str, digits))
    k, n = len(ds), len(ds) + exp          # value = 0.ds × 10^n
    if k <= n <= 21:
        out = ds + "0" * (n - k)
    elif 0 < n <= 21:
        out = ds[:n] + "." + ds[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + ds
    else:
        e = n - 1
        out = ds[0] + ("." + ds[1:] if k > 1 else "") + "e" + ("+" if e > 0 else "-") + str(abs(e))
    return ("-" if x < 0 else "") + out


def js_string(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def field_json_text(o: dict, with_name: bool = True) -> str:
    # Key order: name, kind, then min, max, step, maxLength, element, owner.
    parts = []
    if with_name:
        parts.append(f'"name":{js_string(o["name"])}')
    parts.append(f'"kind":{js_string(o["kind"])}')
    for key in ("min", "max", "step", "maxLength"):
        if key in o:
            parts.append(f'"{key}":{js_number(o[key])}')
    if "element" in o:
        parts.append(f'"element":{field_json_text(o["element"], with_name=False)}')
    if o.get("owner"):
        parts.append('"owner":true')
    return "{" + ",".join(parts) + "}"


def schema_json_text(o: dict) -> str:
    entities = []
    for t in o["entities"]:
        fields = ",".join(field_json_text(f) for f in t["fields"])
        entities.append(f'{{"name":{js_string(t["name"])},"fields":[{fields}]}}')
    return f'{{"tickwireReplication":{js_number(o["tickwireReplication"])},"entities":[{",".join(entities)}]}}'


def fnv1a_utf16(text: str) -> int:
    h = 0x811C9DC5
    units = text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        h = ((h ^ (units[i] | units[i + 1] << 8)) * 0x01000193) % U32
    return h


def schema_hash(o: dict) -> int:
    return fnv1a_utf16(schema_json_text(o))


# ---------------------------------------------------------------------------
# Field codings
# ---------------------------------------------------------------------------

def wrap_int(v: int, bits: int, signed: bool) -> int:
    v %= 1 << bits
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def decode_field(r: BitReader, f: Field, base: Any, what: str) -> Any:
    """Decode the new raw value of field f against base (its mask bit is set)."""
    r.what = what
    k = f.kind
    if k == "bool":
        return base ^ 1
    if k in INT_KINDS:
        bits, signed, p = INT_KINDS[k]
        d = unzigzag(r.len_coded(p, bits))
        return wrap_int(base + d, bits, signed)
    if k == "f32":
        d = unzigzag(r.len_coded(5, 32))
        return (base + d) % U32
    if k == "f64":
        d = unzigzag(r.len_coded(6, 64))
        return (base + d) % U64
    if k == "varint":
        d = unzigzag(r.len_coded(6, 64))
        v = base + d
        if abs(v) > VARINT_FIELD_MAX:
            raise DecodeError(f"at byte {r.pos >> 3} in {what}: varint {v} out of range")
        return v
    if k == "quantized":
        m = bit_length(2 * f.steps)
        p = bit_length(m - 1)
        d = unzigzag(r.len_coded(p, m))
        v = base + d
        if not 0 <= v <= f.steps:
            raise DecodeError(f"at byte {r.pos >> 3} in {what}: step count {v} outside 0..{f.steps}")
        return v
    if k in ("string", "bytes"):
        n = r.read(bit_length(f.max_length))
        if n > f.max_length:
            raise DecodeError(f"at byte {r.pos >> 3} in {what}: {n} bytes > {f.max_length}")
        data = bytes(r.read(8) for _ in range(n))
        if k == "string":
            try:
                data.decode("utf-8", errors="strict")
            except UnicodeDecodeError:
                raise DecodeError(f"at byte {r.pos >> 3} in {what}: invalid UTF-8") from None
        return data
    if k == "array":
        n = r.read(bit_length(f.max_length))
        if n > f.max_length:
            raise DecodeError(f"at byte {r.pos >> 3} in {what}: {n} elements > {f.max_length}")
        out = []
        for i in range(n):
            base_el = base[i] if i < len(base) else f.element.default()
            r.what = f"{what}[{i}]"
            if r.bit():
                out.append(decode_field(r, f.element, base_el, f"{what}[{i}]"))
            else:
                out.append(base_el)
        return tuple(out)
    raise ValueError(f"unknown field kind {k!r}")


# ---------------------------------------------------------------------------
# Client state
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Entity:
    type: int
    raw: tuple


State = dict  # id -> Entity


@dataclass
class Header:
    session: int
    tick: int
    base_ago: int
    deferred: int = 0
    count: int = 0
    records_start: int = 0

    @property
    def base_tick(self) -> int | None:
        return self.tick - self.base_ago if self.base_ago else None


@dataclass
class Client:
    schema: Schema
    window: int = HISTORY_WINDOW
    newest: int = 0                       # newest applied tick, 0: none
    mirror: State = dc_field(default_factory=dict)   # the current state
    history: dict = dc_field(default_factory=dict)   # tick -> State: usable baselines
    floor: int = 0                        # no history older than this is kept
    session: int = 0                      # the session followed, 0: none yet
    left: list = dc_field(default_factory=list)      # sessions followed before (at most 4)

    # -- snapshots for the bundle's all-or-nothing rule ----------------------
    def snapshot(self):
        return (self.newest, self.mirror, dict(self.history), self.floor, self.session, list(self.left))

    def restore(self, snap):
        self.newest, self.mirror, self.history, self.floor = snap[0], snap[1], dict(snap[2]), snap[3]
        self.session, self.left = snap[4], list(snap[5])

    def current(self) -> State:
        return self.mirror

    def ack(self) -> bytes:
        return bytes([MAGIC_ACK]) + self.schema.hash.to_bytes(4, "little") + self.session.to_bytes(4, "little") + write_varint(self.newest)

    # -- state packet --------------------------------------------------------
    def read_header(self, data: bytes) -> tuple[Header, ByteReader]:
        """Magic, schema hash, tick and baseAgo: what the old and
        missing-baseline checks need.

        SPEC: the page puts all header checks before "ignore (old)"; the
        reference reads deferred and count only after those checks (an old
        packet truncated inside count is ignored as old, and an ignored
        packet reports deferred 0)."""
        r = ByteReader(data)
        magic = r.byte("magic")
        if magic != MAGIC_STATE:
            raise DecodeError(f"at byte 0 in magic: expected 0xb1, found {magic:#x}")
        h = r.u32le("schemaHash")
        if h != self.schema.hash:
            raise DecodeError(f"at byte 1 in schemaHash: expected {self.schema.hash:#010x}, found {h:#010x}")
        session = r.u32le("session")
        if session == 0:
            raise DecodeError("session 0")
        tick = r.varint("tick")
        if tick < 1:
            raise DecodeError("tick 0")
        base_ago = r.varint("baseAgo")
        if base_ago > tick:
            raise DecodeError(f"baseAgo {base_ago} > tick {tick}")
        return Header(session, tick, base_ago), r

    @staticmethod
    def read_header_rest(hd: Header, r: ByteReader):
        hd.deferred = r.varint("deferred")
        hd.count = r.varint("count")
        if hd.count > 4 * r.left():
            raise DecodeError(f"at byte {r.pos} in count: expected at most {4 * r.left()} records in {r.left()} bytes, found {hd.count}")
        hd.records_start = r.pos

    def decode_records(self, data: bytes, hd: Header, base: State) -> tuple[State, set]:
        """Decode every record against the baseline state.

        Returns the new state and the set of ids renewed (created while held
        at the baseline)."""
        types = self.schema.types
        type_bits = bit_length(len(types) - 1)
        r = BitReader(data, hd.records_start)
        new: State = dict(base)
        renewed: set = set()
        prev = 0
        for n in range(hd.count):
            r.what = f"records[{n}].id"
            eid = prev + r.gamma()
            if eid >= U32:
                raise DecodeError(f"at byte {r.pos >> 3} in records[{n}].id: id {eid} >= 2^32")
            prev = eid
            r.what = f"records[{n}].op"
            if r.bit() == 0:
                op = "update"
            else:
                op = "despawn" if r.bit() else "create"
            held = base.get(eid)
            if op == "despawn":
                if held is None:
                    raise DecodeError(f"records[{n}]: despawn of id {eid}, not held at the baseline")
                del new[eid]
                continue
            if op == "update":
                if held is None:
                    raise DecodeError(f"records[{n}]: update of id {eid}, not held at the baseline")
                t = held.type
                raws = list(held.raw)
            else:
                r.what = f"records[{n}].type"
                t = r.read(type_bits)
                if t >= len(types):
                    raise DecodeError(f"records[{n}]: unknown type index {t}")
                raws = [f.default() for f in types[t].fields]
                if held is not None:
                    renewed.add(eid)
            fields = types[t].fields
            r.what = f"records[{n}].mask"
            mask = r.read(len(fields))  # chunks of 32 bits, LSB first == one LSB-first read
            for i, f in enumerate(fields):
                if mask >> i & 1:
                    raws[i] = decode_field(r, f, raws[i], f"records[{n}].{types[t].name}.{f.name}")
            new[eid] = Entity(t, tuple(raws))
        # "padded with 0 bits to a whole byte; fewer than 8 padding bits, all zero"
        left = r.left()
        if left >= 8:
            raise DecodeError(f"at byte {r.pos >> 3} in end: expected end of packet, found {left} more bits")
        r.what = "end"
        if r.read(left) != 0:
            raise DecodeError(f"at byte {r.pos >> 3} in end: non-zero padding bits")
        return new, renewed

    def apply_state_packet(self, data: bytes, move_floor: bool = True) -> tuple[dict, "Changes | None"]:
        """Apply one state packet.  Returns (result, changes); changes is None
        when the packet was ignored.

        move_floor=False for a bundle's parts: the bundle moves the floor itself."""
        hd, r = self.read_header(data)
        before = self.current()
        result = {"tick": hd.tick, "baseTick": hd.base_tick, "deferred": 0, "ignored": None}
        # SPEC (client algorithm, step 2): another server's packet
        other = self.session != 0 and hd.session != self.session
        if other:
            if hd.session in self.left:
                return dict(result, ignored="old"), None
            if hd.base_ago or not move_floor:
                return dict(result, ignored="missing-baseline"), None
            base = {}
        elif hd.tick <= self.newest:
            return dict(result, ignored="old"), None
        elif hd.base_ago:
            base = self.history.get(hd.tick - hd.base_ago)
            if base is None:
                return dict(result, ignored="missing-baseline"), None
        else:
            base = {}
        self.read_header_rest(hd, r)
        result["deferred"] = hd.deferred
        new, renewed = self.decode_records(data, hd, base)
        if other:
            # the history, the floor and the newest tick were the other server's; every entity held is renewed
            self.left = (self.left + [self.session])[-4:]
            self.history, self.floor, self.newest = {}, 0, 0
            renewed = set(before)
        self.session = hd.session
        self.mirror = new
        self.history[hd.tick] = new
        self.newest = hd.tick
        if hd.base_ago and move_floor:
            self.floor = max(self.floor, hd.tick - hd.base_ago)
        self.prune()
        return result, Changes.between(self.schema, before, new, renewed)

    def prune(self):
        # SPEC: "the last W ticks it applied" read as: the W newest applied
        # ticks (the corpus cannot tell this from "ticks > newest - W").
        # The floor drops even the newest tick when it is below it (the
        # reference does so after a bundle whose first part's baseline is
        # newer than its last applied part).
        ticks = sorted(self.history)
        keep = set(ticks[-self.window:])
        for t in ticks:
            if t not in keep or t < self.floor:
                del self.history[t]

    # -- bundle --------------------------------------------------------------
    @staticmethod
    def split_bundle(data: bytes) -> list[bytes]:
        r = ByteReader(data)
        parts = []
        while r.left():
            n = len(parts)
            magic = r.byte(f"parts[{n}].bundleMagic")
            if magic != MAGIC_BUNDLE:
                raise DecodeError(f"at byte {r.pos - 1} in parts[{n}].bundleMagic: expected 0xb3, found {magic:#x}")
            length = r.varint(f"parts[{n}].length")
            if not 1 <= length <= r.left():
                raise DecodeError(f"at byte {r.pos} in parts[{n}].length: expected 1 to {r.left()} bytes, found {length}")
            part = data[r.pos:r.pos + length]
            r.pos += length
            if part[0] != MAGIC_STATE:
                raise DecodeError(f"parts[{n}]: first byte {part[0]:#x}, not 0xb1")
            parts.append(part)
        return parts

    def apply_bundle(self, data: bytes) -> tuple[dict, "Changes | None"]:
        parts = self.split_bundle(data)
        snap = self.snapshot()
        results, changes = [], []
        try:
            for i, part in enumerate(parts):
                res, ch = self.apply_state_packet(part, move_floor=False)
                # SPEC (bundle, step 2): each part after the first is of the
                # tick after the part before, against that tick.
                if i > 0:
                    prev = results[-1]["tick"]
                    if res["tick"] != prev + 1 or res["baseTick"] != prev:
                        raise DecodeError(f"bundle part {i}: tick {res['tick']} against {res['baseTick']}, not {prev + 1} against {prev}")
                results.append(res)
                if ch is not None:
                    changes.append((res, ch))
        except DecodeError:
            self.restore(snap)
            raise
        first = results[0]
        if not changes:
            return dict(results[-1]), None
        # The floor moves to the bundle's baseline, not to a later part's.
        if first["baseTick"] is not None:
            self.floor = max(self.floor, first["baseTick"])
        self.prune()
        first_applied, last_applied = changes[0][0], changes[-1][0]
        result = {"tick": last_applied["tick"], "baseTick": first_applied["baseTick"],
                  "deferred": last_applied["deferred"], "ignored": None}
        return result, Changes.compose([ch for _, ch in changes])

    # -- one received datagram --------------------------------------------------
    def receive(self, data: bytes) -> dict:
        if not data:
            raise DecodeError("empty packet")
        if data[0] == MAGIC_BUNDLE:
            result, changes = self.apply_bundle(data)
        else:
            result, changes = self.apply_state_packet(data)
        changes = changes or Changes()
        return {"tick": result["tick"], "baseTick": result["baseTick"], **changes.report(),
                "deferred": result["deferred"], "ignored": result["ignored"]}


@dataclass
class Changes:
    """What one packet (or bundle) changed in the client's current state.

    SPEC: the page says only "the client reports it as despawned and spawned"
    (renewal) and, for bundles, "the net effect".  Assumed here: a diff of the
    current state before and after, where an id counts as a different entity
    (despawned and spawned) when a record renewed it or its type changed;
    "changed" lists the fields whose raw value differs."""
    spawned: set = dc_field(default_factory=set)
    despawned: set = dc_field(default_factory=set)
    changed: dict = dc_field(default_factory=dict)   # id -> set of field indices
    names: dict = dc_field(default_factory=dict)     # id -> field names (for output)
    before_ids: set = dc_field(default_factory=set)  # ids held before

    @staticmethod
    def between(schema: Schema, before: State, after: State, renewed: set) -> "Changes":
        c = Changes(before_ids=set(before))
        for eid in set(before) | set(after):
            a, b = before.get(eid), after.get(eid)
            if a is None:
                c.spawned.add(eid)
            elif b is None:
                c.despawned.add(eid)
            elif eid in renewed or a.type != b.type:
                c.spawned.add(eid)
                c.despawned.add(eid)
            else:
                fields = schema.types[a.type].fields
                idx = {i for i, (x, y) in enumerate(zip(a.raw, b.raw)) if x != y}
                if idx:
                    c.changed[eid] = idx
                    c.names[eid] = [f.name for f in fields]
        return c

    @staticmethod
    def compose(parts: list["Changes"]) -> "Changes":
        """Net effect of consecutive changes."""
        start = parts[0].before_ids
        held = set(start)
        broken = set()        # ids whose original entity went at some point
        fields: dict = {}
        names: dict = {}
        for c in parts:
            for eid in c.despawned:
                if eid in start:
                    broken.add(eid)
                held.discard(eid)
            held |= c.spawned
            for eid, idx in c.changed.items():
                fields.setdefault(eid, set()).update(idx)
                names[eid] = c.names[eid]
        out = Changes(before_ids=start)
        for eid in start | held:
            if eid not in held:
                out.despawned.add(eid)
            elif eid not in start:
                out.spawned.add(eid)
            elif eid in broken:
                out.spawned.add(eid)
                out.despawned.add(eid)
            elif eid in fields:
                out.changed[eid] = fields[eid]
                out.names[eid] = names[eid]
        return out

    def report(self) -> dict:
        return {"spawned": sorted(self.spawned),
                "changed": [[eid, [self.names[eid][i] for i in sorted(self.changed[eid])]]
                            for eid in sorted(self.changed)],
                "despawned": sorted(self.despawned)}


# ---------------------------------------------------------------------------
# Corpus I/O
# ---------------------------------------------------------------------------

def raw_to_json(f: Field, v: Any) -> Any:
    if f.kind == "f64":
        return [v >> 32, v & 0xFFFFFFFF]
    if f.kind in ("string", "bytes"):
        return v.hex()
    if f.kind == "array":
        return [raw_to_json(f.element, x) for x in v]
    return v


def state_to_json(schema: Schema, state: State) -> list:
    out = []
    for eid in sorted(state):
        e = state[eid]
        t = schema.types[e.type]
        out.append({"id": eid, "type": t.name, "raw": [raw_to_json(f, x) for f, x in zip(t.fields, e.raw)]})
    return out


def run_stream(schema: Schema, steps: list) -> list:
    client = Client(schema)
    out = []
    for step in steps:
        packet = bytes.fromhex(step["packet"])
        try:
            result, error = client.receive(packet), None
        except DecodeError as e:
            result, error = None, str(e)
        out.append({"result": result, "error": error,
                    "state": state_to_json(schema, client.current()), "ack": client.ack().hex()})
    return out


def run_corpus(corpus: dict) -> dict:
    schemas = []
    for s in corpus["schemas"]:
        sc = Schema.from_json(s["json"])
        if sc.hash != s["hash"]:
            print(f"warning: schema hash {sc.hash:#010x} computed, corpus says {s['hash']:#010x}", file=sys.stderr)
        schemas.append(sc)
    return {"streams": [{"name": st["name"], "steps": run_stream(schemas[st["schema"]], st["steps"])}
                        for st in corpus["streams"]]}


# ---------------------------------------------------------------------------
# Comparison with the reference decoder's steps
# ---------------------------------------------------------------------------

GROUPS = ["error", "ignored", "tick", "baseTick", "deferred", "state", "ack", "spawned", "changed", "despawned"]
ESSENTIAL = GROUPS[:7]


def diff_step(mine: dict, ref: dict) -> dict:
    """Group name -> (mine, reference) for every differing group."""
    d = {}
    if (mine["error"] is None) != (ref["error"] is None):
        d["error"] = (mine["error"], ref["error"])
    mr, rr = mine["result"] or {}, ref["result"] or {}
    for g in ("ignored", "tick", "baseTick", "deferred", "spawned", "changed", "despawned"):
        if mr.get(g) != rr.get(g):
            d[g] = (mr.get(g), rr.get(g))
    if mine["state"] != ref["state"]:
        d["state"] = (mine["state"], ref["state"])
    if mine["ack"] != ref["ack"]:
        d["ack"] = (mine["ack"], ref["ack"])
    return d


def short(v: Any, n: int = 300) -> str:
    s = json.dumps(v)
    return s if len(s) <= n else s[:n] + "..."


def state_diff(mine: list, ref: list) -> str:
    m = {e["id"]: e for e in mine}
    r = {e["id"]: e for e in ref}
    lines = []
    for eid in sorted(set(m) | set(r)):
        if m.get(eid) != r.get(eid):
            lines.append(f"      id {eid}: mine {short(m.get(eid), 200)} ref {short(r.get(eid), 200)}")
    return "\n".join(lines[:6])


def compare(paths: list[str], max_per_stream: int = 3) -> bool:
    totals = {g: [0, 0] for g in GROUPS}
    steps_total = steps_ok = 0
    for path in paths:
        with open(path) as fh:
            corpus = json.load(fh)
        mine = run_corpus(corpus)
        for st, my in zip(corpus["streams"], mine["streams"]):
            shown = 0
            for i, (ref, me) in enumerate(zip(st["steps"], my["steps"])):
                d = diff_step(me, ref)
                steps_total += 1
                steps_ok += not d
                for g in GROUPS:
                    totals[g][g in d] += 1
                if d and shown < max_per_stream:
                    shown += 1
                    print(f"{path} {st['name']} step {i}: packet {ref['packet'][:40]}...")
                    for g, (a, b) in d.items():
                        if g == "state":
                            print(f"    state differs:\n{state_diff(a, b)}")
                        else:
                            print(f"    {g}: mine {short(a)} ref {short(b)}")
    print(f"\nsteps: {steps_ok} of {steps_total} match exactly")
    for g in GROUPS:
        ok, bad = totals[g]
        print(f"  {g:10s} matched {ok:5d}  mismatched {bad:5d}{'' if g in ESSENTIAL else '  (report only)'}")
    return all(totals[g][1] == 0 for g in ESSENTIAL)


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[1] == "--compare":
        return 0 if compare(argv[2:]) else 1
    corpus = json.load(sys.stdin)
    json.dump(run_corpus(corpus), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
