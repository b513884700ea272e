// The host serializes a header map by encoding all its text at once and takes each length from its string when that
// text is ASCII: the bytes and lengths must be TextEncoder's whatever the text (multi-byte, surrogate pairs, lone
// surrogates), and a serialization must not leave bytes of the one before in what it returns.
import assert from "node:assert/strict";
import { test } from "node:test";
import { serializeHeaderMap, serializeToScratch, type HeaderList } from "../../src-host/host/header-map.ts";

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
