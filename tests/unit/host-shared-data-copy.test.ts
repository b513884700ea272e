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

test("writes of the same length are read back through the module's calls with a new cas each, and a handed-out value stays", () => {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const process = new ProxyProcess();
  let next = 4096;
  const vm = {
    memory: new GuestMemory(memory, () => ((next += 64), next - 64)),
    options: { vmId: "vm", process },
    effectiveContextId: 1,
  } as unknown as WasmVm;
  const calls = sharedDataCalls(new ImportScope(vm, () => ({}) as VmHooks));
  const u8 = () => new Uint8Array(memory.buffer);
  const view = () => new DataView(memory.buffer);
  const put = (at: number, s: string) => (u8().set(enc.encode(s), at), enc.encode(s).length);
  const read = (): { text: string; cas: number } => {
    assert.equal(calls["env.proxy_get_shared_data"](100, kl, 300, 304, 308), Status.Ok);
    const ptr = view().getUint32(300, true);
    const len = view().getUint32(304, true);
    return { text: new TextDecoder().decode(u8().subarray(ptr, ptr + len)), cas: view().getUint32(308, true) };
  };
  const kl = put(100, "key");
  const vl = put(200, "first");
  assert.equal(calls["env.proxy_set_shared_data"](100, kl, 200, vl, 0), Status.Ok);
  const first = read();
  assert.equal(first.text, "first");
  put(200, "other");
  assert.equal(calls["env.proxy_set_shared_data"](100, kl, 200, vl, first.cas), Status.Ok);
  const second = read();
  assert.deepEqual(second.text, "other");
  assert.notEqual(second.cas, first.cas);
  put(200, "stale");
  assert.equal(calls["env.proxy_set_shared_data"](100, kl, 200, vl, first.cas), Status.CasMismatch);
  assert.equal(read().text, "other", "a refused write changes nothing");
  const handedOut = process.sharedData.get("vm", "key").value!;
  put(200, "third");
  assert.equal(calls["env.proxy_set_shared_data"](100, kl, 200, vl, 0), Status.Ok);
  assert.deepEqual(handedOut, enc.encode("other"), "a value get() handed out");
  assert.deepEqual(process.sharedData.peek("vm", "key")!.value, enc.encode("third"));
  assert.equal(read().text, "third");
});

test("writes over a stored value of every length up to 45 bytes, at unaligned addresses, store exactly the new bytes", () => {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const process = new ProxyProcess();
  const vm = {
    memory: new GuestMemory(memory, () => 0),
    options: { vmId: "vm", process },
    effectiveContextId: 1,
  } as unknown as WasmVm;
  const calls = sharedDataCalls(new ImportScope(vm, () => ({}) as VmHooks));
  const u8 = new Uint8Array(memory.buffer);
  u8.set(enc.encode("key"), 100);
  for (let len = 1; len <= 45; len++) {
    for (let round = 0; round < 3; round++) {
      const at = 1001 + round * 67 + len;
      const bytes = Uint8Array.from({ length: len }, (_, i) => (i * 37 + round * 11 + len) & 0xff);
      u8.set(bytes, at);
      assert.equal(calls["env.proxy_set_shared_data"](100, 3, at, len, 0), Status.Ok);
      u8.fill(0xee, at, at + len); // the module reuses its buffer at once
      assert.deepEqual(process.sharedData.peek("vm", "key")!.value, bytes, `length ${len}, round ${round}`);
    }
  }
});
