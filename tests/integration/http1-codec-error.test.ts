// Request headers Envoy's HTTP/1 codec refuses never reach the filter: a Content-Length given twice, with equal values
// or not, is Balsa's MULTIPLE_CONTENT_LENGTH_KEYS (balsa_parser.cc: disallow_multiple_content_length), answered by
// ServerConnectionImpl::sendProtocolError with a 400 "Bad Request" (details http1.codec_error) that runs through the
// filter chain created for it; the VM learns of the stream only when it is logged (context.cc Context::log).
import { test } from "node:test";
import assert from "node:assert/strict";
import { bodyRequest as request, bodyResultsHost } from "../support/body-results-host.ts";
import { RESPONSE_FLAG_BITS } from "../../src-host/host/response-flags.ts";
import {
  HTTP1_CHUNKED_CONTENT_LENGTH,
  HTTP1_CODEC_ERROR,
  HTTP1_INVALID_TRANSFER_ENCODING,
  http1RequestHeadersError,
} from "../../src-host/host/http1-codec-error.ts";

const dec = new TextDecoder();

for (const values of [["2", "2"], ["2", "3"]]) {
  test(`content-length ${values.join(" and ")}: the codec's 400, the headers reach no filter, the plugin only logs the stream`, async () => {
    const { host } = await bodyResultsHost();
    const s = host.newStream();
    s.decodeHeaders(request(values.map((v) => ["content-length", v] as [string, string])), false);
    assert.equal(s.requestState, "local-reply");
    assert.equal(s.localReply?.status, 400);
    assert.equal(s.state.responseCodeDetails, "http1.codec_error");
    assert.equal(s.state.responseFlags & RESPONSE_FLAG_BITS.DPE, RESPONSE_FLAG_BITS.DPE);
    assert.deepEqual(s.state.responseHeaders?.pairs, [[":status", "400"], ["content-length", "11"], ["content-type", "text/plain"]]);
    assert.equal(dec.decode(s.takeReleasedResponseBody()), "Bad Request");
    assert.deepEqual(s.state.requestHeaders.pairs, [], "the filter never got the request headers");
    s.finish();
    assert.deepEqual(s.calls, ["proxy_on_context_create", "proxy_on_log", "proxy_on_done", "proxy_on_delete"]);
  });
}

test("one content-length is taken as it is", async () => {
  const { host } = await bodyResultsHost();
  const s = host.newStream();
  s.decodeHeaders(request([["content-length", "2"]]), false);
  assert.equal(s.requestState, "forwarded");
  assert.equal(s.state.requestHeaders.get("content-length"), "2");
  assert.ok(s.calls.includes("proxy_on_request_headers"));
});

// codec_impl.cc ServerConnectionImpl::onHeadersCompleteImpl: a Transfer-Encoding beside a Content-Length is 400
// (http1.content_length_and_chunked_not_allowed), then one other than chunked 501 (http1.invalid_transfer_encoding).
for (const [fields, status, body, details] of [
  [[["transfer-encoding", "chunked"], ["content-length", "2"]], 400, "Bad Request", "http1.content_length_and_chunked_not_allowed"],
  [[["content-length", "2"], ["transfer-encoding", "gzip"]], 400, "Bad Request", "http1.content_length_and_chunked_not_allowed"],
  [[["transfer-encoding", "gzip"]], 501, "Not Implemented", "http1.invalid_transfer_encoding"],
] as const) {
  test(`${fields.map((f) => f.join(": ")).join(", ")}: the codec's ${status} with ${details}, the headers reach no filter`, async () => {
    const { host } = await bodyResultsHost();
    const s = host.newStream();
    s.decodeHeaders(request(fields.map(([k, v]) => [k, v] as [string, string])), false);
    assert.equal(s.requestState, "local-reply");
    assert.equal(s.localReply?.status, status);
    assert.equal(s.state.responseCodeDetails, details);
    assert.equal(s.state.responseFlags & RESPONSE_FLAG_BITS.DPE, RESPONSE_FLAG_BITS.DPE);
    assert.equal(dec.decode(s.takeReleasedResponseBody()), body);
    assert.deepEqual(s.state.requestHeaders.pairs, [], "the filter never got the request headers");
  });
}

test("a chunked request without a Content-Length is taken as it is", async () => {
  const { host } = await bodyResultsHost();
  const s = host.newStream();
  s.decodeHeaders(request([["transfer-encoding", "Chunked"]]), false);
  assert.equal(s.requestState, "forwarded");
});

test("the codec matches the framing fields' names in any case", () => {
  assert.equal(http1RequestHeadersError([["Content-Length", "2"], ["CONTENT-LENGTH", "2"]]), HTTP1_CODEC_ERROR);
  assert.equal(http1RequestHeadersError([["Transfer-Encoding", "gzip"]]), HTTP1_INVALID_TRANSFER_ENCODING);
  assert.equal(http1RequestHeadersError([["TRANSFER-ENCODING", "chunked"], ["Content-length", "2"]]), HTTP1_CHUNKED_CONTENT_LENGTH);
  // Names of other lengths, and of the same length but another text, are not framing fields.
  assert.equal(http1RequestHeadersError([["content-lengthx", "2"], ["content-lenGTX", "3"], ["transfer-encodinx", "gzip"]]), null);
  assert.equal(http1RequestHeadersError([["Content-Lengths", "2"], ["content-length", "3"]]), null);
  // Non-ASCII: U+0130 lower-cases to two code units ("i" and U+0307), U+212A (Kelvin) to "k"; neither name is a framing
  // field (Envoy lower-cases ASCII only), whatever the length shortcut skips.
  const te = "transfer-encoding";
  for (const name of ["Transfer-Encod\u0130ng", "Transfer-Encod\u0130n", "Content-Lengt\u0130", "Content-Len\u212Ath"]) {
    assert.equal(http1RequestHeadersError([[name, "gzip"], [te, "chunked"], ["content-length", "2"]]), HTTP1_CHUNKED_CONTENT_LENGTH, name);
    assert.equal(http1RequestHeadersError([[name, "2"], ["Content-Length", "2"]]), null, name);
  }
});
