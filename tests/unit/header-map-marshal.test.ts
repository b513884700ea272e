// get_header_map_pairs marshals a map straight into the module's memory at the size PairsUtil::pairsSize gives: the
// size must be the UTF-8 length TextEncoder writes, whatever the text (multi-byte, surrogate pairs, lone surrogates).
import assert from "node:assert/strict";
import { test } from "node:test";
import { serializedSize, writeSerialized, type HeaderList } from "../../src-host/host/header-map.ts";

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

test("a map marshalled in place is the spec's bytes, at the size announced, for any text", () => {
  const maps: HeaderList[] = [
    [[":method", "POST"], ["content-type", "application/json"]],
    [["x-é", "ü"], ["x-cjk", "中文 日本語"], ["x-emoji", "🙂 ok"]],
    [["x-lone-high", "a\ud83d"], ["x-lone-low", "\ude42b"], ["x-reversed", "\ude42\ud83d"], ["", ""]],
    [["x-mixed", "ascii then ü then 🙂 then \ud800"]],
  ];
  for (const pairs of maps) {
    const expected = reference(pairs);
    assert.equal(serializedSize(pairs), expected.length);
    const out = new Uint8Array(expected.length + 7).fill(0xaa);
    writeSerialized(pairs, out, 3);
    assert.deepEqual(out.subarray(3, 3 + expected.length), expected);
    assert.deepEqual([...out.subarray(0, 3), ...out.subarray(3 + expected.length)], [0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa]);
  }
});
