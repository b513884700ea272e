// proxy_set_tick_period_milliseconds from the VM context (a module's start function, before any root context): cpp-host
// exports.cc set_tick_period_milliseconds → ContextBase::setTimerPeriod sets the timer of root_context(), which for the
// VM context (id 0, its own parent) is itself, and answers Ok; envoy wasm.cc Wasm::tickHandler then finds context 0
// (getContext) and calls its onTick: proxy_on_tick(0).
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFixture } from "../support/compile.ts";
import { VirtualClock } from "../../src-host/host/clock.ts";
import { PluginHost } from "../../src-host/host/plugin-host.ts";
import { Status } from "../../src-host/host/abi.ts";

test("a tick period set in the start function is Ok and ticks the VM context (proxy_on_tick(0)); a VM that shut down ticks no more", async () => {
  const clock = new VirtualClock();
  const host = PluginHost.create({ wasm: await compileFixture("tests/guest/start-tick-plugin.ts"), flavor: "envoy", clock });
  const vm = host.workers[0].vm;
  assert.equal(vm.call("start_tick_status", []), Status.Ok);
  clock.advanceTo(clock.nowMs() + 25);
  assert.equal(vm.call("tick_count", []), 2);
  assert.equal(vm.call("last_tick_context", []), 0);
  host.close();
  clock.advanceTo(clock.nowMs() + 50);
  assert.equal(vm.call("tick_count", []), 2);
});
