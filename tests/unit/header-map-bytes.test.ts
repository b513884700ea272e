// The host keeps a header map's serialized bytes (as Envoy's maps hold the codec's bytes) and must drop them on
// every change, or get_header_map_pairs would hand the module a map that no longer is.
import assert from "node:assert/strict";
import { test } from "node:test";
import { serializeHeaderMap, toPairs } from "../../src-host/host/header-map.ts";
import { HeaderMap } from "../../src-host/host/stream.ts";

function expectCurrent(m: HeaderMap, expected: Array<[string, string]>): void {
  assert.deepEqual(m.pairs, expected);
  assert.deepEqual(toPairs(m.serialized()), expected);
  assert.deepEqual(m.serialized(), serializeHeaderMap(expected));
}

test("a header map's bytes follow every change, from the codec or from the module", () => {
  const m = new HeaderMap();
  m.set([[":method", "POST"], ["Content-Type", "application/json"], ["x-é", "ü"]], true);
  expectCurrent(m, [[":method", "POST"], ["content-type", "application/json"], ["x-é", "ü"]]);
  m.add("X-Added", "1");
  expectCurrent(m, [[":method", "POST"], ["content-type", "application/json"], ["x-é", "ü"], ["x-added", "1"]]);
  m.replace("content-type", "text/plain");
  expectCurrent(m, [[":method", "POST"], ["content-type", "text/plain"], ["x-é", "ü"], ["x-added", "1"]]);
  m.remove("x-é");
  expectCurrent(m, [[":method", "POST"], ["content-type", "text/plain"], ["x-added", "1"]]);
  m.remove("absent");
  expectCurrent(m, [[":method", "POST"], ["content-type", "text/plain"], ["x-added", "1"]]);
  m.set([["a", "b"]]);
  expectCurrent(m, [["a", "b"]]);
});
