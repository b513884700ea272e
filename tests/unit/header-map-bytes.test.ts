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
  // header_map_impl.cc HeaderMapImpl::setCopy: remove, then add at the end.
  m.replace("content-type", "text/plain");
  expectCurrent(m, [[":method", "POST"], ["x-é", "ü"], ["x-added", "1"], ["content-type", "text/plain"]]);
  m.remove("x-é");
  expectCurrent(m, [[":method", "POST"], ["x-added", "1"], ["content-type", "text/plain"]]);
  m.remove("absent");
  expectCurrent(m, [[":method", "POST"], ["x-added", "1"], ["content-type", "text/plain"]]);
  m.set([["a", "b"]]);
  expectCurrent(m, [["a", "b"]]);
});

test("headers go where Envoy's header list puts them: a replaced header leaves its place for the end, a pseudo-header goes before the first regular one, and a map the module sets is added pair by pair (header_map_impl.h HeaderList::insert, header_map_impl.cc HeaderMapImpl::setCopy; wasm context.cc Context::setHeaderMapPairs)", () => {
  const m = new HeaderMap();
  m.set([[":method", "POST"], [":path", "/"], ["x-dup", "1"], ["accept", "*/*"], ["x-dup", "2"]], true);
  m.replace("x-dup", "3");
  expectCurrent(m, [[":method", "POST"], [":path", "/"], ["accept", "*/*"], ["x-dup", "3"]]);
  m.add(":authority", "gateway");
  m.replace(":path", "/v1");
  expectCurrent(m, [[":method", "POST"], [":authority", "gateway"], [":path", "/v1"], ["accept", "*/*"], ["x-dup", "3"]]);
  m.set([["x-only", "1"], [":path", "/set"], [":method", "GET"]]);
  expectCurrent(m, [[":path", "/set"], [":method", "GET"], ["x-only", "1"]]);
});
