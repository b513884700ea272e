// Context ids are uint32 in cpp-host (wasm.h WasmBase next_context_id_, a uint32_t): a module hands its stream's id back
// to proxy_set_effective_context as an i32 (exports.cc set_effective_context takes a Word, uint32), which reaches JS as
// a negative number at or above 2^31. A stream with such an id is resumed as any other.
import { test } from "node:test";
import assert from "node:assert/strict";
import { VirtualClock } from "../../src-host/host/clock.ts";
import { SimRedis } from "../../src-host/sim/sim-redis.ts";
import { chat, pickerHost, text } from "../support/picker.ts";

const CLUSTER = "outbound|6379||redis.default.svc.cluster.local";
const RTT_MS = 200;

test("a stream whose context id is at or above 2^31 is resumed when the Redis reply comes", () => {
  const clock = new VirtualClock();
  const h = pickerHost({
    workers: 1,
    clock,
    redis: new Map([[CLUSTER, new SimRedis(clock, RTT_MS)]]),
    config: { metrics: { snapshotTtlMs: 0 }, redis: { cluster: CLUSTER, timeoutMs: 5000 } },
  });
  h.setPods(["10.0.0.1:8000", "10.0.0.2:8000"].map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  const vm = h.host.workers[0].vm;
  for (const first of [2 ** 31 - 1, 2 ** 31, 2 ** 32 - 2]) {
    (vm as unknown as { nextContextId: number }).nextContextId = first;
    const s = h.send(chat(text(first % 1000, 3000), [], `question ${first}`));
    assert.equal(s.contextId, first);
    assert.equal(s.requestState, "paused", "the request asks Redis");
    clock.advanceTo(clock.nowMs() + RTT_MS + 1);
    assert.equal(s.requestState, "forwarded", `context ${first} is resumed`);
    h.complete(s);
  }
  assert.equal(h.host.traps, 0);
  h.host.close();
});
