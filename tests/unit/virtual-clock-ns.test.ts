// The virtual clock's nanoseconds (what proxy_get_current_time_nanoseconds returns in the simulator and benches) follow
// every move of virtual time, fractions of a millisecond included, however often they are read in between.
import { test } from "node:test";
import assert from "node:assert/strict";
import { VirtualClock } from "../../src-host/host/clock.ts";

test("nowNs is now in nanoseconds after every advance, read once or many times", () => {
  const clock = new VirtualClock(1_000);
  assert.equal(clock.nowNs(), 1_000_000_000n);
  assert.equal(clock.nowNs(), 1_000_000_000n);
  clock.advanceTo(1_000.25);
  assert.equal(clock.nowNs(), 1_000_250_000n);
  let fired = 0n;
  clock.after(5, () => (fired = clock.nowNs()));
  clock.advanceTo(2_000);
  assert.equal(fired, 1_005_250_000n);
  assert.equal(clock.nowNs(), 2_000_000_000n);
});
