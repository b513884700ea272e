// Higress's two host calls as the Higress build sees them: which hosts are candidates, and the answer for an
// empty host list.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Status } from "../../../src-host/host/abi.ts";
import { ClusterRegistry, StaticCluster } from "../../../src-host/host/cluster.ts";
import { GuestMemory } from "../../../src-host/host/guest-memory.ts";
import { higressImports } from "../../../src-host/host/higress-imports.ts";
import type { WasmVm } from "../../../src-host/host/vm.ts";
import { chat, pickerHost, text } from "../../support/picker.ts";

test("an empty host list is Ok with a null pointer and size 0 (higress-group/proxy-wasm-cpp-host exports.cc get_upstream_hosts)", () => {
  const memory = new WebAssembly.Memory({ initial: 1 });
  let next = 1024;
  const mem = new GuestMemory(memory, (n) => ((next += n), next - n));
  const clusters = new ClusterRegistry().add(new StaticCluster("backends", []));
  const vm = { abiVersion: "0.2.1", memory: mem, effectiveContextId: 7, streams: new Map([[7, { info: { clusterName: "backends" } }]]), options: { clusters } } as unknown as WasmVm;
  const get = higressImports(vm)["env.proxy_get_upstream_hosts"] as (p: number, l: number) => number;
  const view = new DataView(memory.buffer);
  view.setUint32(16, 0xdead, true);
  view.setUint32(20, 0xbeef, true);
  assert.equal(get(16, 20), Status.Ok);
  assert.equal(view.getUint32(16, true), 0, "pointer");
  assert.equal(view.getUint32(20, true), 0, "size");
  // A stream whose route has no such cluster: NotFound.
  (vm.streams.get(7) as any).info.clusterName = "other";
  assert.equal(get(16, 20), Status.NotFound);
});

test("only \"Healthy\" hosts are candidates, as in Higress's ai-load-balancer (endpoint_metrics/lb_policy.go HandleHttpRequestBody); assembly/endpoints/upstream-hosts.ts isUsable", () => {
  const h = pickerHost({ flavor: "higress" });
  h.setPods([
    { address: "10.0.5.1:8000", health: "Degraded", waiting: 0, kv: 0 },
    { address: "10.0.5.2:8000", health: "HEALTHY", waiting: 0, kv: 0 },
    { address: "10.0.5.3:8000", health: "Healthy", waiting: 30, kv: 0.9 },
  ]);
  for (let i = 0; i < 4; i++) assert.equal(h.chosen(h.send(chat(text(400 + i, 500), [], "q"))), "10.0.5.3:8000");
  h.setPods([{ address: "10.0.5.1:8000", health: "Degraded" }]);
  const s = h.send(chat(text(410, 500), [], "q"));
  assert.equal(h.chosen(s), null);
  assert.equal(h.counter("fallback.no_healthy_endpoint"), 1);
});

test("the Higress build on an empty host list fails open as no_endpoints", () => {
  const h = pickerHost({ flavor: "higress" });
  const s = h.send(chat(text(420, 500), [], "q"));
  assert.equal(h.chosen(s), null);
  assert.equal(s.requestState, "forwarded");
  assert.equal(h.counter("fallback.no_endpoints"), 1);
});
