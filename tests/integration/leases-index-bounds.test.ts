// The prefix index never holds more entries for an endpoint than its capacity, however records, purges and
// capacity changes interleave; it stays internally consistent and its total is the sum of the slots.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileAs } from "../../src-host/wasm/compile-as.ts";
import { SeededRandom } from "../../src-host/util/seeded-random.ts";


async function compile(): Promise<Record<string, (...a: Array<number | bigint>) => number>> {
  const binary = (await compileAs("tests/guest/fuzz-prefix-index-harness.ts", "standalone")) as Uint8Array<ArrayBuffer>;
  const instance = new WebAssembly.Instance(new WebAssembly.Module(binary), { env: { abort: () => { throw new Error("abort"); } } });
  return instance.exports as never;
}

test("random records, purges and capacity changes never exceed an endpoint's capacity", async () => {
  const x = await compile();
  for (const seed of [1, 2, 3]) {
    const rng = new SeededRandom(seed);
    const endpoints = rng.range(2, 6);
    const cap = rng.pick([1, 7, 64, 300]);
    x.create(endpoints, cap, 1000);
    assert.equal(x.capacityPerEndpoint(), cap);
    for (let op = 0; op < 20_000; op++) {
      const slot = rng.int(endpoints + 1) - (rng.chance(0.02) ? 3 : 0); // now and then an invalid slot
      const r = rng.int(100);
      if (r < 85) x.record(slot, BigInt(rng.int(2000)), rng.size(1000));
      else if (r < 90) x.purge(slot);
      else x.setCapacity(slot, rng.pick([-1, 0, 1, rng.int(cap + 1), cap, cap * 2]));
      if (op % 500 === 0 || op > 19_990) {
        let total = 0;
        for (let s = 0; s < endpoints; s++) {
          const size = x.size(s);
          assert.ok(size <= x.capacity(s) && x.capacity(s) <= cap && x.capacity(s) >= 1, `seed ${seed} op ${op} slot ${s}: ${size}/${x.capacity(s)}`);
          total += size;
        }
        assert.equal(x.totalEntries(), total);
        assert.ok(x.consistent(), `seed ${seed} op ${op}: inconsistent`);
      }
    }
  }
});
