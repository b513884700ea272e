// A request body without Content-Length (an HTTP/1.1 chunked upload, or an HTTP/2 client that sends no
// length) is decided like any other, within limits.maxRequestBodyBytes, and counted (unsized_bodies).
// Envoy delivers such a body chunk by chunk with end_of_stream on the last (envoy context.cc
// Context::decodeData; the buffered body grows while the filter returns StopIterationAndBuffer), which is
// what FilterStream.decodeData does. Checked: assembly/picker/request-gate.ts RequestGate.check and
// assembly/picker/picker-stream.ts PickerStream.onRequestBody, in both builds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterRegistry } from "../../../src-host/host/cluster.ts";
import type { FilterStream } from "../../../src-host/host/filter-stream.ts";
import { chat, pickerHost, text } from "../../support/picker.ts";
import { vllmPage } from "../../../src-host/harness/vllm-page.ts";

const PODS = ["10.0.3.1:8000", "10.0.3.2:8000"];

function harness(flavor: "higress" | "envoy", limits?: object) {
  const clusters = new ClusterRegistry();
  PODS.forEach((address, i) =>
    clusters.add({
      name: `metrics-${i}`,
      hosts: () => [],
      dispatch: (_req, respond) => respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(vllmPage({ waiting: i * 10, kv: 0.1 })), trailers: [] }),
    }),
  );
  const config = flavor === "envoy" ? { endpoints: PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })), limits } : { limits };
  const h = pickerHost({ flavor, config, clusters });
  if (flavor === "higress") h.setPods(PODS.map((address, i) => ({ address, waiting: i * 10, kv: 0.1 })));
  else h.clock.advanceTo(h.clock.nowMs() + 3000);
  return h;
}

/** Sends the body in `pieces` chunks without a Content-Length header. */
function sendChunked(h: ReturnType<typeof harness>, body: string, pieces: number): FilterStream {
  const bytes = new TextEncoder().encode(body);
  const s = h.host.newStream({ clusterName: "backends" });
  s.decodeHeaders([[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "g"], ["content-type", "application/json"], ["transfer-encoding", "chunked"]], false);
  const step = Math.ceil(bytes.length / pieces);
  for (let at = 0; at < bytes.length; at += step) s.decodeData(bytes.subarray(at, at + step), at + step >= bytes.length);
  return s;
}

for (const flavor of ["higress", "envoy"] as const) {
  test(`${flavor} build: a chunked upload is read to its end, decided and counted`, () => {
    const h = harness(flavor);
    const s = sendChunked(h, JSON.stringify(chat(text(7, 3000), [], "q")), 5);
    assert.equal(s.requestState, "forwarded");
    assert.equal(h.chosen(s), PODS[0], "routed by load like a request with a length");
    assert.equal(h.counter("unsized_bodies"), 1);
    assert.equal(h.counter("decisions"), 1);
    assert.equal(h.counter("fallback.content_length"), 0);
    // The whole body went upstream, unchanged.
    assert.equal(new TextDecoder().decode(s.takeReleasedBody()), JSON.stringify(chat(text(7, 3000), [], "q")));
  });

  test(`${flavor} build: a chunked upload past limits.maxRequestBodyBytes fails open as body_too_large, whole`, () => {
    const h = harness(flavor, { maxRequestBodyBytes: 2048 });
    const body = JSON.stringify(chat(text(8, 6000), [], "q"));
    const s = sendChunked(h, body, 6);
    assert.equal(s.requestState, "forwarded");
    assert.equal(h.chosen(s), null);
    assert.equal(h.counter("fallback.body_too_large"), 1);
    assert.equal(new TextDecoder().decode(s.takeReleasedBody()), body);
  });
}
