// How often the picker collects garbage (assembly/abi/gc.ts): each collection marks the whole live heap, so neither a
// stream nor a tick may pay for one each time, and a worker that makes no garbage pays for none. Counted through the
// stage marks of the bench's profiling build, which marks every collection (assembly/abi/stage-profile.ts Stage.Gc).
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileAs } from "../../../src-host/wasm/compile-as.ts";
import { PICKER_PLUGIN_ENTRY } from "../../../src-host/wasm/guest-entries.ts";
import { chat, pickerHost, text } from "../../support/picker.ts";

const STAGE_GC = 1;

async function countingCollections(config: object = {}) {
  const wasm = await compileAs(PICKER_PLUGIN_ENTRY, "profile");
  const counts = { collections: 0 };
  const h = pickerHost({
    wasm,
    config,
    extraImports: [
      () => ({
        "bench_profile.stage_enter": (stage: number) => {
          if (stage === STAGE_GC) counts.collections++;
        },
        "bench_profile.stage_leave": () => {},
      }),
    ],
  });
  h.setPods(["10.0.0.1:8000", "10.0.0.2:8000"].map((address) => ({ address, waiting: 0, running: 1, kv: 0.2 })));
  return { h, counts };
}

test("the 20 ms tick of the default configuration does not collect garbage on every tick", async () => {
  const { h, counts } = await countingCollections();
  const before = counts.collections;
  // Two seconds: a hundred ticks of the shared load's 20 ms timer.
  h.clock.advanceTo(h.clock.nowMs() + 2000);
  const collections = counts.collections - before;
  assert.ok(collections <= 10, `${collections} collections in 100 ticks`);
});

test("600 streams in a row need no collection", async () => {
  const { h, counts } = await countingCollections();
  const before = counts.collections;
  for (let i = 0; i < 600; i++) h.complete(h.send(chat(text(i, 400), [], "q" + i)));
  assert.ok(counts.collections - before <= 1, `${counts.collections - before} collections over 600 streams`);
});

test("a warm worker, whose requests allocate nothing, never collects", async () => {
  const { h, counts } = await countingCollections();
  let i = 0;
  // The first collection takes what configuration and warm-up left.
  for (; i < 1100; i++) h.complete(h.send(chat(text(i, 400), [], "q" + i)));
  const before = counts.collections;
  for (; i < 4200; i++) h.complete(h.send(chat(text(i, 400), [], "q" + i)));
  h.clock.advanceTo(h.clock.nowMs() + 2000);
  assert.equal(counts.collections - before, 0);
});

test("requests that allocate (the debug header's text) are still collected, and memory stays put", async () => {
  const { h, counts } = await countingCollections({ debug: { header: true } });
  const memory = () => h.host.workers[0].vm.linearMemoryBytes();
  let i = 0;
  for (; i < 2100; i++) h.complete(h.send(chat(text(i, 400), [], "q" + i)));
  const before = counts.collections;
  const bytes = memory();
  for (; i < 6200; i++) h.complete(h.send(chat(text(i, 400), [], "q" + i)));
  assert.ok(counts.collections - before >= 3, `${counts.collections - before} collections over 4,100 streams`);
  assert.equal(memory(), bytes);
});

test("a replaced configuration's root, once gone, is collected though the requests allocate nothing", async () => {
  const { h, counts } = await countingCollections();
  const held = h.send(chat(text(0, 400), [], "q0"));
  h.host.replaceConfiguration(JSON.stringify({}));
  let i = 1;
  for (; i < 2200; i++) h.complete(h.send(chat(text(i, 400), [], "q" + i)));
  const before = counts.collections;
  h.complete(held); // its root context goes with its last stream
  for (; i < 3300; i++) h.complete(h.send(chat(text(i, 400), [], "q" + i)));
  assert.equal(counts.collections - before, 1);
});
