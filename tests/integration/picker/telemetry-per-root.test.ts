// A root context keeps one set of counters whatever its configurations do (assembly/picker/worker-pickers.ts): a
// configuration that fails leaves the running one counting where the tick writes, and a root left without any
// configuration still ticks to write what it counted. cpp-host wasm.cc WasmBase::start keeps a root context per plugin
// key and calls on_configure on it again (WasmBase::configure) when the key's plugin is made again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterRegistry, type Cluster } from "../../../src-host/host/cluster.ts";
import { vllmPage } from "../../../src-host/harness/vllm-page.ts";
import { chat, pickerHost, text } from "../../support/picker.ts";

const PODS = ["10.0.2.1:8000", "10.0.2.2:8000"];
/** assembly/picker/picker-root.ts METRICS_FLUSH_MS. */
const METRICS_FLUSH_MS = 1000;
const enc = new TextEncoder();

function metricsClusters(): ClusterRegistry {
  const registry = new ClusterRegistry();
  PODS.forEach((_address, i) => {
    const cluster: Cluster = {
      name: `metrics-${i}`,
      hosts: () => [],
      dispatch(_req, respond) {
        respond({ headers: [[":status", "200"]], body: enc.encode(vllmPage({ waiting: 0, running: 1, kv: 0.1 })), trailers: [] });
      },
    };
    registry.add(cluster);
  });
  return registry;
}

/** Parses, and the stock build's platform refuses it: the address is longer than the registry keeps (envoy-platform.ts). */
const REFUSED = JSON.stringify({ endpoints: [{ address: "a".repeat(40) + "." + "b".repeat(40) + ":8000", metricsCluster: "metrics-0" }] });

function stockPicker() {
  const config = { endpoints: PODS.map((address, i) => ({ address, metricsCluster: `metrics-${i}` })) };
  const h = pickerHost({ flavor: "envoy", config, clusters: metricsClusters() });
  h.clock.advanceTo(h.clock.nowMs() + 500);
  return h;
}

/** The host's counter as it stands, without running the plugin's tick (PluginHost.stats, not scrape). */
function written(h: ReturnType<typeof pickerHost>, name: string): number {
  const v = h.host.stats()[`endpoint_picker.${name}`];
  return typeof v === "number" ? v : 0;
}

test("a root whose second configuration fails keeps counting the running one, and its tick writes every count", () => {
  const h = stockPicker();
  for (let i = 0; i < 2; i++) h.complete(h.send(chat(text(10 + i, 400), [], "q" + i)));
  const worker = h.host.workers[0];
  const vm = worker.vm;
  const root = worker.rootContextId;
  vm.roots.get(root)!.pluginConfig = enc.encode(REFUSED);
  assert.equal(vm.configure(root), false);
  assert.match(h.logs.at(-1)!, /cannot track endpoint/);
  for (let i = 0; i < 3; i++) h.complete(h.send(chat(text(20 + i, 400), [], "q" + i)));
  h.clock.advanceTo(h.clock.nowMs() + METRICS_FLUSH_MS);
  assert.equal(written(h, "requests"), 5);
});

test("a root whose first configuration fails still ticks and writes what it counted", () => {
  const h = stockPicker();
  const worker = h.host.workers[0];
  const vm = worker.vm;
  const running = worker.rootContextId;
  const failed = vm.createRootContext(enc.encode(REFUSED));
  assert.ok(vm.vmStart(failed));
  assert.equal(vm.configure(failed), false);
  // A stream of the unconfigured root fails open, counted.
  worker.rootContextId = failed;
  h.complete(h.send(chat(text(30, 400), [], "q")));
  worker.rootContextId = running;
  h.clock.advanceTo(h.clock.nowMs() + METRICS_FLUSH_MS);
  assert.equal(written(h, "fallback.not_configured"), 1);
});
