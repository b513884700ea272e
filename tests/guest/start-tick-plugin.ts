// A bare proxy-wasm module that sets a tick period from its start function (_initialize, the VM context: no root context
// yet) and counts its proxy_on_tick calls and the context each names, for tests/integration/vm-context-tick.test.ts.
import "../../assembly/abi/abort";

@external("env", "proxy_set_tick_period_milliseconds")
declare function proxy_set_tick_period_milliseconds(periodMs: u32): i32;

const startStatus = proxy_set_tick_period_milliseconds(10);
let ticks: u32 = 0;
let lastTickContext: u32 = 0xffffffff;

export function proxy_abi_version_0_2_1(): void {}
export function malloc(size: usize): usize {
  return heap.alloc(size);
}
export function proxy_on_context_create(_id: u32, _parent: u32): void {}
export function proxy_on_vm_start(_id: u32, _size: u32): bool {
  return true;
}
export function proxy_on_configure(_id: u32, _size: u32): bool {
  return true;
}
export function proxy_on_tick(id: u32): void {
  ticks++;
  lastTickContext = id;
}
export function start_tick_status(): i32 {
  return startStatus;
}
export function tick_count(): u32 {
  return ticks;
}
export function last_tick_context(): u32 {
  return lastTickContext;
}
