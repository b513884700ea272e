// The stock-Envoy build's polling lease and metrics records (assembly/platform/metrics-poller.ts) when more than one
// configuration lives in a VM. Envoy keeps a replaced configuration's root context, and its tick, until its last stream
// ends (cpp-host wasm.cc WasmBase::startShutdown runs only when the last plugin handle goes; envoy context.h
// Context::plugin_handle_), and filters with the same vm_config share one VM whatever their `configuration`: the root
// contexts of different configurations live side by side, and shared data is one map per vm_id (cpp-host
// shared_data.cc). A configuration's lease must not keep another configuration's endpoints from being polled.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterRegistry, type Cluster, type HttpCallOutcome } from "../../../src-host/host/cluster.ts";
import { chat, pickerHost, text } from "../../support/picker.ts";
import { vllmPage } from "../../../src-host/harness/vllm-page.ts";

const OLD = ["10.0.3.1:8000", "10.0.3.2:8000"];
const NEW = ["10.0.3.1:8000", "10.0.3.9:8000"];
const INTERVAL = 200;

function clusters(polls: Map<string, number>): ClusterRegistry {
  const registry = new ClusterRegistry();
  for (const address of new Set([...OLD, ...NEW])) {
    const cluster: Cluster = {
      name: `metrics-${address}`,
      hosts: () => [],
      dispatch(_req, respond: (o: HttpCallOutcome) => void) {
        polls.set(address, (polls.get(address) ?? 0) + 1);
        const page = vllmPage({ waiting: 0, running: 1, kv: 0.1 });
        respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(page), trailers: [] });
      },
    };
    registry.add(cluster);
  }
  return registry;
}

const configOf = (pods: string[]) => ({
  endpoints: pods.map((address) => ({ address, metricsCluster: `metrics-${address}` })),
  metrics: { pollIntervalMs: INTERVAL, pollTimeoutMs: 150, snapshotTtlMs: 50 },
});

test("a configuration replaced while a stream runs on the old one: the new configuration's endpoints are polled from its first ticks, not once the old root context is gone", () => {
  const polls = new Map<string, number>();
  const h = pickerHost({ flavor: "envoy", workers: 2, config: configOf(OLD), clusters: clusters(polls) });
  h.clock.advanceTo(h.clock.nowMs() + 3 * INTERVAL);
  assert.ok((polls.get(OLD[1]) ?? 0) >= 2, "the old configuration polls");
  // A long answer keeps the old root context (and its tick) alive on worker 0.
  const open = h.send(chat(text(1, 600), [], "q"), [], { worker: 0 });
  h.host.replaceConfiguration(JSON.stringify(configOf(NEW)));
  h.clock.advanceTo(h.clock.nowMs() + 2 * INTERVAL + 10);
  assert.ok((polls.get(NEW[1]) ?? 0) >= 1, `the added endpoint was polled ${polls.get(NEW[1]) ?? 0} times in two intervals`);
  h.clock.advanceTo(h.clock.nowMs() + 20 * INTERVAL);
  assert.ok((polls.get(NEW[1]) ?? 0) >= 15, `the added endpoint is polled every interval (${polls.get(NEW[1]) ?? 0} polls)`);
  h.complete(open);
});

test("a lease that ends further ahead than any renewal writes (the wall clock stepped back after its holder wrote it) does not stop the polling", () => {
  // proxy_get_current_time_nanoseconds is the wall clock (envoy context.cc Context::getCurrentTimeNanoseconds:
  // systemTime), which may step back; a holder that dies then leaves a lease that looks valid for as long as the step.
  const polls = new Map<string, number>();
  const h = pickerHost({ flavor: "envoy", workers: 2, config: configOf(OLD), clusters: clusters(polls) });
  h.clock.advanceTo(h.clock.nowMs() + 3 * INTERVAL);
  const shared = h.host.process.sharedData;
  const leases = shared.keys("endpoint_picker").filter((k) => k.endsWith("/poller"));
  assert.equal(leases.length, OLD.length, leases.join(", "));
  // What a holder that died wrote one hour of wall time "later" than now.
  const lease = new Uint8Array(16);
  const view = new DataView(lease.buffer);
  view.setBigUint64(0, 999_999n, true);
  view.setFloat64(8, h.clock.nowMs() + 3_600_000, true);
  for (const k of leases) shared.set("endpoint_picker", k, lease, 0);
  const before = polls.get(OLD[0]) ?? 0;
  h.clock.advanceTo(h.clock.nowMs() + 10 * INTERVAL);
  assert.ok((polls.get(OLD[0]) ?? 0) - before >= 8, `${(polls.get(OLD[0]) ?? 0) - before} polls in ten intervals`);
});

/** An endpoint's published cache size (blocks) after a whole page, and after its page grows by `filler` lines
 *  before vllm:cache_config_info. */
function cacheSizeBeforeAndAfterGrowth(filler: string): [number, number] {
  let grow = false;
  const registry = new ClusterRegistry();
  for (const address of OLD) {
    registry.add({
      name: `metrics-${address}`,
      hosts: () => [],
      dispatch(_req, respond: (o: HttpCallOutcome) => void) {
        let page = vllmPage({ waiting: 0, running: 1, kv: 0.1, numGpuBlocks: 1000, blockSize: 16 });
        if (grow) {
          const at = page.indexOf("# HELP vllm:cache_config_info");
          assert.ok(at > 0);
          page = page.slice(0, at) + filler + page.slice(at);
        }
        respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(page), trailers: [] });
      },
    });
  }
  const h = pickerHost({ flavor: "envoy", workers: 2, config: configOf(OLD), clusters: registry });
  const shared = h.host.process.sharedData;
  const blocks = () => {
    const key = shared.keys("endpoint_picker").find((k) => k.endsWith(`/${OLD[0]}/metrics`));
    assert.ok(key, shared.keys("endpoint_picker").join(", "));
    const v = shared.get("endpoint_picker", key).value!;
    const view = new DataView(v.buffer, v.byteOffset, v.byteLength);
    const hasCacheConfig = (v[2] & 32) !== 0;
    return hasCacheConfig ? Number(view.getBigInt64(48, true)) : 0;
  };
  h.clock.advanceTo(h.clock.nowMs() + 2 * INTERVAL);
  const before = blocks();
  grow = true;
  h.clock.advanceTo(h.clock.nowMs() + 3 * INTERVAL);
  return [before, blocks()];
}

test("an endpoint's cache size stands in its published record when its page grows past the 256 KiB the poller reads (vLLM writes cache_config_info last; Envoy's async client takes up to 32 MiB: async_client_impl.h kBufferLimitForResponse)", () => {
  const filler = Array.from({ length: 7000 }, (_, i) => `vllm:filler_total{engine="0",i="${i}"} 1.0\n`).join("");
  assert.ok(filler.length > 262144);
  const [before, after] = cacheSizeBeforeAndAfterGrowth(filler);
  assert.equal(before, 1000, "a whole page");
  assert.equal(after, 1000, "a page cut before cache_config_info keeps the size last read");
});

test("the same when the page stops at the parser's line budget before cache_config_info (20,000 lines in under 256 KiB)", () => {
  const filler = Array.from({ length: 21000 }, (_, i) => `f${i % 10} 1\n`).join("");
  assert.ok(filler.length < 200000);
  const [before, after] = cacheSizeBeforeAndAfterGrowth(filler);
  assert.equal(before, 1000, "a whole page");
  assert.equal(after, 1000, "a page read only to the line budget keeps the size last read");
});

test("every worker's VM failed and reloaded (FAIL_RELOAD): the new VMs, with new worker tokens, poll again from their first ticks; the dead ones' leases have expired by then", () => {
  const polls = new Map<string, number>();
  const h = pickerHost({ flavor: "envoy", workers: 2, config: configOf(OLD), clusters: clusters(polls), failurePolicy: "FAIL_RELOAD" });
  h.clock.advanceTo(h.clock.nowMs() + 3 * INTERVAL);
  for (const w of h.host.workers) w.vm.failed = true; // as a trap leaves it (vm.ts WasmVm.call)
  const before = polls.get(OLD[0]) ?? 0;
  h.clock.advanceTo(h.clock.nowMs() + 1600); // past the reload backoff, [1 s, 1.5 s)
  assert.equal(polls.get(OLD[0]) ?? 0, before, "a failed VM does not tick");
  for (const worker of [0, 1]) h.complete(h.send(chat(text(worker, 600), [], "q"), [], { worker }));
  assert.ok(h.host.workers.every((w) => !w.vm.failed), "both VMs were reloaded");
  h.clock.advanceTo(h.clock.nowMs() + INTERVAL + 10);
  assert.ok((polls.get(OLD[0]) ?? 0) - before >= 1, "polled within one interval of the reload");
  h.clock.advanceTo(h.clock.nowMs() + 10 * INTERVAL);
  const n = (polls.get(OLD[0]) ?? 0) - before;
  assert.ok(n >= 10 && n <= 12, `one worker polls: ${n} polls in eleven intervals`);
});

test("the call id after 0xfffffffc is 0 (cpp-host wasm.h nextHttpCallId adds 4 to a u32): its answer goes to the endpoint it was for, not to one with no call pending", () => {
  const registry = new ClusterRegistry();
  OLD.forEach((address, i) => registry.add({
    name: `metrics-${address}`,
    hosts: () => [],
    dispatch(_req, respond: (o: HttpCallOutcome) => void) {
      const page = vllmPage(i === 0 ? { waiting: 0, running: 0, kv: 0.01 } : { waiting: 30, running: 60, kv: 0.95 });
      respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(page), trailers: [] });
    },
  }));
  const h = pickerHost({ flavor: "envoy", workers: 1, config: configOf(OLD), clusters: registry });
  // The VM has made 2^30 - 2 calls: the first endpoint's next call is 0xfffffffc, the second's 0.
  (h.host.workers[0].vm as unknown as { lastHttpCallId: number }).lastHttpCallId = 0xfffffff8;
  h.clock.advanceTo(h.clock.nowMs() + INTERVAL + 1);
  const shared = h.host.process.sharedData;
  const running = (address: string) => {
    const key = shared.keys("endpoint_picker").find((k) => k.endsWith(`/${address}/metrics`))!;
    const v = shared.get("endpoint_picker", key).value!;
    return new DataView(v.buffer, v.byteOffset, v.byteLength).getFloat64(24, true);
  };
  assert.equal(running(OLD[0]), 0, "the idle endpoint's record holds its own page");
  assert.equal(running(OLD[1]), 60);
});

test("an older build in the same process, polling the same endpoints with another record layout, leaves this build its own lease and record", () => {
  // A new plugin build is loaded beside the old one, whose root contexts live on until their last streams end, and
  // both share the vm_id's shared data (cpp-host shared_data.cc: one map per vm_id). Each reads only records of its
  // own version (metrics-record.ts), so a lease and record shared with the old build would leave one of them without
  // any endpoint's metrics for as long as the other polls.
  const polls = new Map<string, number>();
  const waiting = (address: string) => (address === OLD[0] ? 30 : 0);
  const registry = new ClusterRegistry();
  for (const address of OLD) {
    registry.add({
      name: `metrics-${address}`,
      hosts: () => [],
      dispatch(_req, respond: (o: HttpCallOutcome) => void) {
        polls.set(address, (polls.get(address) ?? 0) + 1);
        const page = vllmPage({ waiting: waiting(address), running: 1, kv: 0.1 });
        respond({ headers: [[":status", "200"]], body: new TextEncoder().encode(page), trailers: [] });
      },
    });
  }
  const h = pickerHost({ flavor: "envoy", workers: 2, config: configOf(OLD), clusters: registry });
  h.clock.advanceTo(h.clock.nowMs() + 3 * INTERVAL);
  const shared = h.host.process.sharedData;
  // The keys of a build whose records are version 3 (no version in its keys).
  const oldKeys = shared.keys("endpoint_picker").filter((k) => k.endsWith("/poller") || k.endsWith("/metrics"))
    .map((k) => k.replace(/\/endpoint\/v\d+\//, "/endpoint/"));
  assert.equal(oldKeys.length, 2 * OLD.length, oldKeys.join(", "));
  const lease = new Uint8Array(16);
  const leaseView = new DataView(lease.buffer);
  leaseView.setBigUint64(0, 999_999n, true);
  const oldRecord = new Uint8Array(88);
  oldRecord[0] = 0xeb;
  oldRecord[1] = 3;
  // The old build renews its leases at every tick and publishes its records.
  const cancel = h.clock.every(INTERVAL / 2, () => {
    leaseView.setFloat64(8, h.clock.nowMs() + 3 * INTERVAL, true);
    for (const k of oldKeys) shared.set("endpoint_picker", k, k.endsWith("/poller") ? lease : oldRecord, 0);
  });
  const before = polls.get(OLD[1]) ?? 0;
  h.clock.advanceTo(h.clock.nowMs() + 10 * INTERVAL);
  assert.ok((polls.get(OLD[1]) ?? 0) - before >= 8, `${(polls.get(OLD[1]) ?? 0) - before} polls in ten intervals`);
  // Its own records read: the endpoint with a long queue is avoided.
  const chosen: string[] = [];
  for (let k = 0; k < 8; k++) {
    const s = h.send(chat(text(k + 1, 40), [], "q"), [], { worker: k % 2 });
    chosen.push(h.chosen(s)!);
    h.complete(s);
  }
  assert.deepEqual(chosen, chosen.map(() => OLD[1]));
  cancel();
});
