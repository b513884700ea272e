// Process-wide shared data (compare-and-swap) and shared queues, keyed by vm_id as in Envoy's
// SharedData and SharedQueue (shared-state.ts).
import { Status } from "../abi.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

export function sharedDataCalls(scope: ImportScope): HostFunctions {
  const { vm, mem, hooks, rootOf, ret } = scope;

  const proc = vm.options.process;

  return {
    "env.proxy_get_shared_data": (kPtr: number, kLen: number, retPtr: number, retLen: number, retCas: number) => {
      const r = proc.sharedData.peek(vm.options.vmId, mem().readString(kPtr, kLen));
      if (r === undefined) return Status.NotFound;
      // exports.cc get_shared_data: the value is copied out first; the cas is written only if that worked.
      const copied = ret(retPtr, retLen, r.value);
      if (copied !== Status.Ok) return copied;
      mem().writeU32(retCas, r.cas);
      return Status.Ok;
    },
    "env.proxy_set_shared_data": (kPtr: number, kLen: number, vPtr: number, vLen: number, cas: number) => {
      const m = mem();
      const key = m.readString(kPtr, kLen);
      return proc.sharedData.setFrom(vm.options.vmId, key, m.checkedView(vPtr, vLen), vPtr >>> 0, vLen >>> 0, cas >>> 0);
    },

    "env.proxy_register_shared_queue": (nPtr: number, nLen: number, retId: number) => {
      const root = rootOf(vm.effectiveContextId);
      if (root === null) return Status.BadArgument;
      // shared_queue.cc SharedQueue::enqueue hands onQueueReady to the registering VM's call_on_thread,
      // which Envoy's Wasm::callOnThreadFunction (wasm.cc) posts to that worker's dispatcher: a later
      // event-loop turn, never inside the enqueue call.
      const id = proc.queues.register(vm.options.vmId, mem().readString(nPtr, nLen), {
        onQueueReady: (queueId) => {
          vm.options.clock.after(0, () => {
            if (!vm.shutDown) hooks().queueReady(root, queueId);
          });
        },
      });
      mem().writeU32(retId, id);
      return Status.Ok;
    },
    "env.proxy_resolve_shared_queue": (vPtr: number, vLen: number, nPtr: number, nLen: number, retId: number) => {
      // context.cc ContextBase::lookupSharedQueue: an empty vm_id means this VM's own.
      const vmId = mem().readString(vPtr, vLen);
      const id = proc.queues.resolve(vmId === "" ? vm.options.vmId : vmId, mem().readString(nPtr, nLen));
      if (id === null) return Status.NotFound;
      mem().writeU32(retId, id);
      return Status.Ok;
    },
    "env.proxy_enqueue_shared_queue": (id: number, vPtr: number, vLen: number) => proc.queues.enqueue(id >>> 0, mem().read(vPtr, vLen)),
    "env.proxy_dequeue_shared_queue": (id: number, retPtr: number, retLen: number) => {
      const r = proc.queues.dequeue(id >>> 0);
      return r.status !== Status.Ok ? r.status : ret(retPtr, retLen, r.value!);
    },
  };
}
