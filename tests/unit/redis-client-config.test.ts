// What proxy_redis_init's cluster name configures, read as Higress's Envoy reads it: the query after the first
// "?" (source/common/http/utility.cc Utility::parseQueryString) and two of its values as std::stoul reads them
// (envoy-1.36 envoy/redis/async_client.h AsyncClientConfig::parseUint32FromParams).
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_CLIENT_CONFIG, clientConfig, parseQueryString, sameClientConfig } from "../../src-host/host/redis-client.ts";

test("the query: split on & after the first ?, not decoded, a bare name is empty, the first of a repeated name wins", () => {
  assert.deepEqual([...parseQueryString("c")], []);
  assert.deepEqual([...parseQueryString("c?")], []);
  assert.deepEqual([...parseQueryString("c?db=1&db=2&flag&x=a%20b&")], [["db", "1"], ["flag", ""], ["x", "a%20b"]]);
  assert.deepEqual([...parseQueryString("c?a=1?b=2")], [["a", "1?b=2"]]);
});

test("buffer_flush_timeout and max_buffer_size_before_flush: std::stoul, else the defaults 3 and 1024", () => {
  const read = (query: string) => {
    const c = clientConfig("outbound|6379||redis" + query, "", "", 100);
    return [c.bufferFlushTimeoutMs, c.maxBufferSizeBeforeFlush];
  };
  assert.deepEqual(read(""), [3, 1024]);
  assert.deepEqual(read("?buffer_flush_timeout=0&max_buffer_size_before_flush=0"), [0, 0]);
  assert.deepEqual(read("?buffer_flush_timeout= 7ms&max_buffer_size_before_flush=+64"), [7, 64]);
  assert.deepEqual(read("?buffer_flush_timeout=abc&max_buffer_size_before_flush="), [3, 1024]);
  // Too big for uint32, or negative (strtoul negates in unsigned long): the default; "-0" is 0.
  assert.deepEqual(read("?buffer_flush_timeout=4294967296&max_buffer_size_before_flush=-1"), [3, 1024]);
  assert.deepEqual(read("?buffer_flush_timeout=4294967295&max_buffer_size_before_flush=-0"), [4294967295, 0]);
  assert.deepEqual(read("?buffer_flush_timeout=99999999999999999999999"), [3, 1024]);
});

test("the same configuration: credentials, timeout and every query parameter", () => {
  const a = clientConfig("c?db=1&buffer_flush_timeout=0", "u", "p", 100);
  assert.ok(sameClientConfig(a, clientConfig("c?buffer_flush_timeout=0&db=1", "u", "p", 100)));
  assert.ok(!sameClientConfig(a, clientConfig("c?db=1&buffer_flush_timeout=0&x", "u", "p", 100)));
  assert.ok(!sameClientConfig(a, clientConfig("c?db=1&buffer_flush_timeout=0", "u", "p", 101)));
  assert.ok(!sameClientConfig(a, clientConfig("c?db=1&buffer_flush_timeout=0", "u", "q", 100)));
  // ConfigImpl's defaults: what a cluster's client has before any proxy_redis_init.
  assert.deepEqual({ ...DEFAULT_CLIENT_CONFIG, params: [...DEFAULT_CLIENT_CONFIG.params] }, {
    username: "", password: "", opTimeoutMs: 1000, params: [], maxBufferSizeBeforeFlush: 1024, bufferFlushTimeoutMs: 3,
  });
});
