// proxy_set_shared_data keeps a copy of the module's bytes (cpp-host shared_data.cc SharedData::set stores a
// std::string): the module may reuse its buffer at once, and a value read earlier is not changed by a later write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Status } from "../../src-host/host/abi.ts";
import { sharedDataCalls } from "../../src-host/host/envoy-calls/shared-data-calls.ts";
import { ImportScope, type VmHooks } from "../../src-host/host/envoy-calls/scope.ts";
import { GuestMemory } from "../../src-host/host/guest-memory.ts";
import { ProxyProcess } from "../../src-host/host/shared-state.ts";
import type { WasmVm } from "../../src-host/host/vm.ts";

const enc = new TextEncoder();

test("a stored value is the bytes at the time of the write, and one read earlier stays as it was", () => {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const process = new ProxyProcess();
  const vm = {
    memory: new GuestMemory(memory, () => 0),
    options: { vmId: "vm", process },
    effectiveContextId: 1,
  } as unknown as WasmVm;
  const calls = sharedDataCalls(new ImportScope(vm, () => ({}) as VmHooks));
  const put = (at: number, s: string) => (new Uint8Array(memory.buffer).set(enc.encode(s), at), enc.encode(s).length);
  const kl = put(100, "key");
  const vl = put(200, "first");
  assert.equal(calls["env.proxy_set_shared_data"](100, kl, 200, vl, 0), Status.Ok);
  put(200, "FIRST");
  const first = process.sharedData.get("vm", "key");
  assert.deepEqual(first.value, enc.encode("first"));
  put(200, "other");
  assert.equal(calls["env.proxy_set_shared_data"](100, kl, 200, vl, first.cas!), Status.Ok);
  assert.deepEqual(first.value, enc.encode("first"), "the value read before the write");
  assert.deepEqual(process.sharedData.get("vm", "key").value, enc.encode("other"));
  assert.notEqual(process.sharedData.get("vm", "key").cas, first.cas);
});
