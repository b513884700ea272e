// A configuration replaced while requests are in flight: Envoy starts a new root context on each worker's VM for the
// new plugin configuration (cpp-host wasm.cc getOrCreateThreadLocalPlugin, WasmBase::start) and shuts the old one down
// only when its last stream has gone (each stream holds the old plugin handle: envoy context.h Context::plugin_handle_).
// Streams in flight finish on the old configuration: their leases and their share of the process-wide load go back to
// it, and nothing is left counted once they end.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pickerCounters } from "../../src-host/fuzz/picker-driver.ts";
import { chat, pickerHost, sharedLoadCounts, text } from "../support/picker.ts";

const PODS = ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000", "10.0.0.4:8000"];

test("requests in flight when the configuration is replaced give their leases and load back to the old one", () => {
  const h = pickerHost({ workers: 2 });
  h.setPods(PODS.map((address) => ({ address, waiting: 0, running: 0, kv: 0.1 })));
  const open = Array.from({ length: 8 }, (_, i) => h.send(chat(text(40 + i, 2000), [], "q" + i), [], { worker: i % 2 }));
  h.clock.advanceTo(h.clock.nowMs() + 25); // every worker writes its load out
  assert.equal(sharedLoadCounts(h).reduce((sum, c) => sum + c[0], 0), 8);
  const oldRoots = h.host.workers.map((w) => w.rootContextId);

  h.host.replaceConfiguration(JSON.stringify({ scoring: { shareLoadAcrossWorkers: true }, seed: 7 }));
  assert.notDeepEqual(h.host.workers.map((w) => w.rootContextId), oldRoots, "each worker has a new root context");
  assert.deepEqual(oldRoots.map((id, w) => h.host.workers[w].vm.roots.has(id)), [true, true], "the old ones live on while their streams do");
  const fresh = h.send(chat(text(90, 2000), [], "new"), [], { worker: 0 });
  assert.ok(PODS.includes(h.chosen(fresh)!), "the new configuration routes");

  // The old streams end at one instant: the worker holds back all but its first change (shared-load.ts FLUSH_MS), and
  // its root context is shut down right after its last stream, before any tick.
  for (const s of open) {
    s.encodeHeaders([[":status", "200"]], false);
    s.encodeData(new TextEncoder().encode("data: {}\n\n"), true);
    s.finish();
  }
  assert.deepEqual(oldRoots.map((id, w) => h.host.workers[w].vm.roots.has(id)), [false, false], "the old root contexts are gone");
  assert.equal(pickerCounters(h.host).get("inflight"), 1, "only the new request is in flight");
  // Before any tick: the old root contexts wrote what they held back as they went (PickerRoot.onDone); without that the
  // new root's next tick would write it anyway, so only this assertion sees the flush.
  assert.deepEqual(sharedLoadCounts(h), [[1, 1]], "the old root contexts wrote what they held back as they went");
  h.clock.advanceTo(h.clock.nowMs() + 25);
  assert.deepEqual(sharedLoadCounts(h), [[1, 1]], "only the new request counts in the shared load");
  h.complete(fresh);
  h.clock.advanceTo(h.clock.nowMs() + 25);
  assert.deepEqual(sharedLoadCounts(h), [], "finished requests leave no load behind");
  assert.equal(pickerCounters(h.host).get("inflight"), 0);
  assert.equal(h.host.traps, 0);
});
