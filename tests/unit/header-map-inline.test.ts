// Envoy's inline headers (src-host/host/inline-headers.ts): adding one that is there already appends to its value with ","
// (header_map_impl.cc HeaderMapImpl::insertByKey → appendToHeader), where any other header gets an entry of its own;
// the map type decides which headers are inline. proxy_add_header_map_value and proxy_set_header_map_pairs add this way
// (wasm context.cc Context::addHeaderMapValue, setHeaderMapPairs: addCopy).
import { test } from "node:test";
import assert from "node:assert/strict";
import { HeaderMap, StreamState, normalizeHeaders } from "../../src-host/host/stream.ts";
import { REQUEST_HEADERS_INLINE, RESPONSE_HEADERS_INLINE, RESPONSE_TRAILERS_INLINE } from "../../src-host/host/inline-headers.ts";

test("request headers: a second x-forwarded-for or :path joins the first, a second x-custom is an entry of its own", () => {
  const s = new StreamState(2, {}, 0);
  const h = s.requestHeaders;
  h.set([[":method", "POST"], [":path", "/a"], ["x-forwarded-for", "1.1.1.1"], ["x-custom", "1"]], true);
  h.add("X-Forwarded-For", "2.2.2.2");
  h.add(":path", "b");
  h.add("x-custom", "2");
  assert.deepEqual(h.pairs, [[":method", "POST"], [":path", "/a,b"], ["x-forwarded-for", "1.1.1.1,2.2.2.2"], ["x-custom", "1"], ["x-custom", "2"]]);
  assert.equal(h.get("x-forwarded-for"), "1.1.1.1,2.2.2.2");
});

test("appendToHeader: an empty value adds nothing, and an empty value is replaced without a delimiter", () => {
  const h = new StreamState(2, {}, 0).requestHeaders;
  h.set([["user-agent", ""]], true);
  h.add("user-agent", "");
  assert.deepEqual(h.pairs, [["user-agent", ""]]);
  h.add("user-agent", "curl");
  assert.deepEqual(h.pairs, [["user-agent", "curl"]]);
});

test("a map set pair by pair joins repeated inline headers; replace still drops them all and adds one at the end", () => {
  const h = new StreamState(2, {}, 0).requestHeaders;
  h.set([["content-type", "a"], ["x-b", "1"], ["content-type", "b"]]);
  assert.deepEqual(h.pairs, [["content-type", "a,b"], ["x-b", "1"]]);
  h.replace("content-type", "c");
  assert.deepEqual(h.pairs, [["x-b", "1"], ["content-type", "c"]]);
});

test("the map type decides: server is inline in response headers, user-agent is not; trailers have only grpc-status and grpc-message", () => {
  const r = new HeaderMap([[":status", "200"], ["server", "a"], ["user-agent", "x"]], RESPONSE_HEADERS_INLINE);
  r.add("server", "b");
  r.add("user-agent", "y");
  assert.deepEqual(r.pairs, [[":status", "200"], ["server", "a,b"], ["user-agent", "x"], ["user-agent", "y"]]);
  const t = new HeaderMap([["grpc-status", "0"], ["server", "a"]], RESPONSE_TRAILERS_INLINE);
  t.add("grpc-status", "1");
  t.add("server", "b");
  assert.deepEqual(t.pairs, [["grpc-status", "0,1"], ["server", "a"], ["server", "b"]]);
});

test("off the wire, the codec joins a repeated inline header to the first (http1 codec_impl.cc completeCurrentHeader → addViaMove → insertByKey); other repeats stay entries of their own", () => {
  const h = new StreamState(2, {}, 0).requestHeaders;
  h.set([[":method", "POST"], ["X-Forwarded-For", "1.1.1.1"], ["x-custom", "1"], ["x-forwarded-for", "2.2.2.2"], ["x-custom", "2"], ["user-agent", ""], ["user-agent", "curl"]], true);
  assert.deepEqual(h.pairs, [[":method", "POST"], ["x-forwarded-for", "1.1.1.1,2.2.2.2"], ["x-custom", "1"], ["x-custom", "2"], ["user-agent", "curl"]]);
  const r = new HeaderMap(normalizeHeaders([[":status", "200"], ["server", "a"], ["Server", "b"], ["set-cookie", "x"], ["set-cookie", "y"]], RESPONSE_HEADERS_INLINE), RESPONSE_HEADERS_INLINE);
  assert.deepEqual(r.pairs, [[":status", "200"], ["server", "a,b"], ["set-cookie", "x"], ["set-cookie", "y"]]);
});

test("the inline sets hold lower-case names only (normalizeHeaders takes a name found in one as it is)", () => {
  for (const set of [REQUEST_HEADERS_INLINE, RESPONSE_HEADERS_INLINE, RESPONSE_TRAILERS_INLINE]) {
    for (const name of set) assert.equal(name, name.toLowerCase());
  }
});
