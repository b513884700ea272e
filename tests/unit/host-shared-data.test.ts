// src-host/host/envoy-calls/shared-data-calls.ts against cpp-host's exports.cc, shared_data.cc and
// shared_queue.cc, called directly on a bare linear memory (no plugin): what each call returns and writes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Status } from "../../src-host/host/abi.ts";
import { VirtualClock } from "../../src-host/host/clock.ts";
import { sharedDataCalls } from "../../src-host/host/envoy-calls/shared-data-calls.ts";
import { ImportScope, type VmHooks } from "../../src-host/host/envoy-calls/scope.ts";
import { GuestMemory } from "../../src-host/host/guest-memory.ts";
import { ProxyProcess } from "../../src-host/host/shared-state.ts";
import type { WasmVm } from "../../src-host/host/vm.ts";

const enc = new TextEncoder();

/** A VM that is only a memory, a root context (id 1) and what the shared-data calls read. */
function bareVm(opts: { vmId?: string; process?: ProxyProcess; malloc?: (n: number) => number; clock?: VirtualClock } = {}) {
  const memory = new WebAssembly.Memory({ initial: 1 });
  let next = 4096;
  const malloc = opts.malloc ?? ((n: number) => ((next += n), next - n));
  const clock = opts.clock ?? new VirtualClock();
  const ready: Array<[number, number]> = [];
  const vm = {
    memory: new GuestMemory(memory, malloc),
    options: { vmId: opts.vmId ?? "vm", process: opts.process ?? new ProxyProcess(), clock },
    effectiveContextId: 1,
    rootOf: (id: number) => (id === 1 ? 1 : null),
    shutDown: false,
  } as unknown as WasmVm;
  const hooks = { queueReady: (root: number, q: number) => ready.push([root, q]) } as unknown as VmHooks;
  const calls = sharedDataCalls(new ImportScope(vm, () => hooks));
  const u8 = () => new Uint8Array(memory.buffer);
  const put = (at: number, s: string) => (u8().set(enc.encode(s), at), [at, enc.encode(s).length] as const);
  const u32 = (at: number) => new DataView(memory.buffer).getUint32(at, true);
  return { calls, put, u32, u8, ready, clock, vm };
}

test("get_shared_data: a refused malloc is InvalidMemoryAccess and writes no cas (exports.cc get_shared_data, wasm.h copyToPointerSize)", () => {
  const process = new ProxyProcess();
  const writer = bareVm({ process });
  const [k, kl] = writer.put(100, "key");
  const [v, vl] = writer.put(200, "value");
  assert.equal(writer.calls["env.proxy_set_shared_data"](k, kl, v, vl, 0), Status.Ok);

  const reader = bareVm({ process, malloc: () => 0 });
  reader.put(100, "key");
  new DataView(reader.u8().buffer).setUint32(308, 0xabcdef, true);
  assert.equal(reader.calls["env.proxy_get_shared_data"](100, 3, 300, 304, 308), Status.InvalidMemoryAccess);
  assert.equal(reader.u32(308), 0xabcdef, "the cas out-param is untouched");
});

test("shared data: the first cas is 1, each set takes the next, cas 0 always writes, a missing key is NotFound (shared_data.cc SharedData::set, shared_data.h nextCas)", () => {
  const { calls, put, u32 } = bareVm();
  const [k, kl] = put(100, "key");
  const [v, vl] = put(200, "v");
  assert.equal(calls["env.proxy_get_shared_data"](k, kl, 300, 304, 308), Status.NotFound);
  assert.equal(calls["env.proxy_set_shared_data"](k, kl, v, vl, 77), Status.Ok, "a new key ignores the cas");
  assert.equal(calls["env.proxy_get_shared_data"](k, kl, 300, 304, 308), Status.Ok);
  assert.equal(u32(308), 1);
  assert.equal(calls["env.proxy_set_shared_data"](k, kl, v, vl, 7), Status.CasMismatch);
  assert.equal(calls["env.proxy_set_shared_data"](k, kl, v, vl, 1), Status.Ok);
  assert.equal(calls["env.proxy_set_shared_data"](k, kl, v, vl, 0), Status.Ok);
  calls["env.proxy_get_shared_data"](k, kl, 300, 304, 308);
  assert.equal(u32(308), 3);
});

test("shared data is per vm_id: VMs of one process that take turns, one of them new, see only their own keys (shared_data.cc SharedData keyed by vm_id)", () => {
  const process = new ProxyProcess();
  const a = bareVm({ vmId: "a", process });
  const b = bareVm({ vmId: "b", process });
  const read = (vm: typeof a, k: number, kl: number) => {
    const status = vm.calls["env.proxy_get_shared_data"](k, kl, 300, 304, 308);
    return status === Status.Ok ? new TextDecoder().decode(vm.u8().subarray(vm.u32(300), vm.u32(300) + vm.u32(304))) : status;
  };
  const [ka, kal] = a.put(100, "key");
  const [va, val] = a.put(200, "from a");
  const [kb, kbl] = b.put(100, "key");
  const [vb, vbl] = b.put(200, "from b");
  assert.equal(a.calls["env.proxy_set_shared_data"](ka, kal, va, val, 0), Status.Ok);
  assert.equal(read(b, kb, kbl), Status.NotFound, "b has no data yet");
  assert.equal(read(a, ka, kal), "from a");
  assert.equal(b.calls["env.proxy_set_shared_data"](kb, kbl, vb, vbl, 0), Status.Ok);
  assert.equal(read(b, kb, kbl), "from b");
  assert.equal(read(a, ka, kal), "from a");
  const [va2, va2l] = a.put(250, "a again");
  assert.equal(a.calls["env.proxy_set_shared_data"](ka, kal, va2, va2l, 0), Status.Ok);
  assert.equal(read(b, kb, kbl), "from b");
  assert.equal(read(a, ka, kal), "a again");
});

test("shared queues: an empty vm_id resolves this VM's own queue (context.cc ContextBase::lookupSharedQueue)", () => {
  const { calls, put, u32 } = bareVm({ vmId: "own" });
  const [n, nl] = put(100, "q");
  assert.equal(calls["env.proxy_register_shared_queue"](n, nl, 300), Status.Ok);
  const token = u32(300);
  assert.equal(calls["env.proxy_resolve_shared_queue"](0, 0, n, nl, 304), Status.Ok);
  assert.equal(u32(304), token);
  const [o, ol] = put(200, "other");
  assert.equal(calls["env.proxy_resolve_shared_queue"](o, ol, n, nl, 308), Status.NotFound);
});

test("shared queues: on_queue_ready comes on a later event-loop turn, not inside the enqueue (shared_queue.cc SharedQueue::enqueue, envoy wasm.cc Wasm::callOnThreadFunction)", () => {
  const { calls, put, u32, ready, clock } = bareVm();
  const [n, nl] = put(100, "q");
  calls["env.proxy_register_shared_queue"](n, nl, 300);
  const token = u32(300);
  const [v, vl] = put(200, "item");
  assert.equal(calls["env.proxy_enqueue_shared_queue"](token, v, vl), Status.Ok);
  assert.deepEqual(ready, [], "nothing is delivered during the enqueue call");
  clock.advanceTo(clock.nowMs());
  assert.deepEqual(ready, [[1, token]]);
  assert.equal(calls["env.proxy_dequeue_shared_queue"](token, 304, 308), Status.Ok);
  assert.equal(calls["env.proxy_dequeue_shared_queue"](token, 304, 308), Status.Empty);
});
