// Where the host's Redis client finds the end of a reply, and which bytes close the connection instead: as Higress's
// RawDecoderImpl reads them (higress-group/envoy source/extensions/filters/network/common/redis/codec_impl.cc,
// RawDecoderImpl::parseSlice): the RESP2 types * $ - + : only, a length or integer of an optional sign and digits
// up to CR LF, a bulk string's body followed by exactly CR LF, a simple string or error up to its first CR, which LF
// must follow. A ProtocolError there closes the connection (RawClientImpl::onData).
import { test } from "node:test";
import assert from "node:assert/strict";
import { RespProtocolError, replyLength } from "../../src-host/host/redis-resp.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const len = (s: string) => replyLength(enc(s));
const bad = (s: string) => assert.throws(() => len(s), RespProtocolError, JSON.stringify(s));

test("complete replies and where they end; -1 while more bytes are needed", () => {
  assert.equal(len("+OK\r\n+X"), 5);
  assert.equal(len("-ERR wrong\r\n"), 12);
  assert.equal(len(":-12\r\n"), 6);
  assert.equal(len(":+3\r\n"), 5);
  assert.equal(len("$3\r\nabc\r\n"), 9);
  assert.equal(len("$-1\r\n"), 5);
  assert.equal(len("*-1\r\n"), 5);
  assert.equal(len("*0\r\n"), 4);
  assert.equal(len("*2\r\n$1\r\na\r\n*1\r\n:1\r\n"), 19);
  for (const partial of ["", "+OK", "+OK\r", "$3\r\nab", "$3\r\nabc\r", "*2\r\n:1\r\n", ":1"]) assert.equal(len(partial), -1, JSON.stringify(partial));
});

test("what RawDecoderImpl accepts that a stricter reader might not: a + sign, no digits, -0 as null", () => {
  assert.equal(len("$+2\r\nab\r\n"), 9);
  assert.equal(len(":\r\n"), 3, "an integer with no digits is 0");
  assert.equal(len("$\r\n\r\n"), 5, "a bulk string with no length digits is empty");
  assert.equal(len("$-0\r\n"), 5, "any negative length is the null bulk string");
  assert.equal(len("*-0\r\n"), 5, "and the null array");
});

test("bytes RawDecoderImpl refuses (ProtocolError): closes the connection", () => {
  bad("_\r\n"); // RESP3 null: "invalid value type"
  bad("%1\r\n+a\r\n+b\r\n"); // RESP3 map
  bad("#t\r\n");
  bad(":12a\r\n"); // "invalid integer character"
  bad("$1x\r\n");
  bad("*--1\r\n");
  bad(":1\rx"); // "expect new line"
  bad("+OK\rx\r\n"); // a simple string's CR must be followed by LF
  bad("$3\r\nabcX\n"); // "expected carriage return" after the body
  bad("$3\r\nabc\rX"); // "expected new line"
  bad("*2\r\n:1\r\n?"); // an element of an unknown type
});
