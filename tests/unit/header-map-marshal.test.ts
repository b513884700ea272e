// The host serializes a header map by encoding all its text at once and takes each length from its string when that
// text is ASCII: the bytes and lengths must be TextEncoder's whatever the text (multi-byte, surrogate pairs, lone
// surrogates), and a serialization must not leave bytes of the one before in what it returns.
import assert from "node:assert/strict";
import { test } from "node:test";
import { serializeHeaderMap, serializeToScratch, type HeaderList } from "../../src-host/host/header-map.ts";
import { HeaderMap } from "../../src-host/host/stream.ts";

const enc = new TextEncoder();

/** The spec's serialization, built from TextEncoder's bytes. */
function reference(pairs: HeaderList): Uint8Array {
  const parts = pairs.map(([k, v]) => [enc.encode(k), enc.encode(v)]);
  const size = 4 + parts.reduce((n, [k, v]) => n + 8 + k.length + v.length + 2, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, pairs.length, true);
  let at = 4 + 8 * pairs.length;
  parts.forEach(([k, v], i) => {
    view.setUint32(4 + 8 * i, k.length, true);
    view.setUint32(8 + 8 * i, v.length, true);
    out.set(k, at);
    at += k.length + 1;
    out.set(v, at);
    at += v.length + 1;
  });
  return out;
}

test("a serialized map is the spec's bytes for any text", () => {
  const maps: HeaderList[] = [
    [[":method", "POST"], ["content-type", "application/json"]],
    [["x-é", "ü"], ["x-cjk", "中文 日本語"], ["x-emoji", "🙂 ok"]],
    [["x-lone-high", "a\ud83d"], ["x-lone-low", "\ude42b"], ["x-reversed", "\ude42\ud83d"], ["", ""]],
    [["x-mixed", "ascii then ü then 🙂 then \ud800"]],
    [["x-long", "a".repeat(5000) + "é"]],
    [],
    [["a", "1"]],
  ];
  for (const pairs of maps) {
    assert.deepEqual(serializeToScratch(pairs), reference(pairs));
    assert.deepEqual(serializeHeaderMap(pairs), reference(pairs));
  }
});

test("a map from the wire marshals to the same bytes as it serializes to, before and after each change", () => {
  const m = new HeaderMap();
  const check = () => {
    const expected = reference(m.pairs);
    assert.equal(m.serializedSize(), expected.length);
    const out = new Uint8Array(expected.length + 6).fill(0xaa);
    m.writeTo(out, 2);
    assert.deepEqual(out.subarray(2, 2 + expected.length), expected);
    assert.deepEqual([...out.subarray(0, 2), ...out.subarray(2 + expected.length)], [0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa]);
    assert.deepEqual(m.serialized(), expected);
  };
  m.set([[":method", "POST"], ["Content-Type", "application/json"], ["content-length", "12"]], true);
  check();
  m.add("X-Added", "1");
  check();
  m.replace("content-type", "text/plain; charset=ü");
  check();
  m.remove("x-added");
  check();
  m.set([["x-é", "ü"], ["x-emoji", "🙂"]], true);
  check();
  m.set([["a", "b"], ["c", ""]], true);
  check();
  m.set([]);
  check();
});

test("maps from the wire keep their own bytes however many arrive (they share the host's pooled slabs)", () => {
  const maps: HeaderMap[] = [];
  const lists: HeaderList[] = [];
  for (let i = 0; i < 200; i++) {
    const pairs: HeaderList = [[":method", "POST"], ["x-n", String(i).repeat(1 + (i % 37))], ["x-é", "ü".repeat(i % 5)]];
    const m = new HeaderMap();
    m.set(pairs, true);
    maps.push(m);
    lists.push(pairs);
  }
  maps.forEach((m, i) => {
    assert.deepEqual(m.serialized(), reference(lists[i]));
    const out = new Uint8Array(m.serializedSize());
    m.writeTo(out, 0);
    assert.deepEqual(out, reference(lists[i]));
  });
});
