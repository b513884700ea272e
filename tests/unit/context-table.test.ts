import { test } from "node:test";
import assert from "node:assert/strict";
import { ContextTable } from "../../src-host/host/context-table.ts";

/** The table and a Map agree on everything a reader sees. */
function assertSame(table: ContextTable<string>, map: Map<number, string>, ids: Iterable<number>): void {
  assert.equal(table.size, map.size);
  for (const id of ids) {
    assert.equal(table.has(id), map.has(id), `has(${id})`);
    assert.equal(table.get(id), map.get(id), `get(${id})`);
  }
  assert.deepEqual([...table.keys()], [...map.keys()], "keys in insertion order");
  assert.deepEqual([...table.values()], [...map.values()]);
  assert.deepEqual([...table], [...map]);
}

test("random sets, replacements and deletes answer as a Map does, through growth and collisions", () => {
  const table = new ContextTable<string>(4);
  const map = new Map<number, string>();
  let seed = 11;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
  const ids = new Set<number>();
  for (let step = 0; step < 4000; step++) {
    // Ids from a small range collide in probe runs (and wrap around the table's end); some are far apart.
    const id = random(4) === 0 ? random(1 << 20) : random(48);
    ids.add(id);
    const op = random(3);
    if (op === 0) assert.equal(table.delete(id), map.delete(id), `delete(${id})`);
    else {
      table.set(id, `v${step}`);
      map.set(id, `v${step}`);
    }
    if (step % 50 === 0) assertSame(table, map, ids);
  }
  assertSame(table, map, ids);
});

test("streams added and deleted one at a time, in id order, leave it empty and its lookups right", () => {
  const table = new ContextTable<string>();
  for (let id = 1; id < 1000; id++) {
    table.set(id, `s${id}`);
    table.set(id + 1000, `t${id}`);
    assert.equal(table.get(id), `s${id}`);
    assert.equal(table.delete(id), true);
    assert.equal(table.get(id), undefined);
    assert.equal(table.get(id + 1000), `t${id}`);
    assert.equal(table.delete(id + 1000), true);
    assert.equal(table.size, 0);
  }
  assert.equal(table.delete(5), false);
});

test("an id that is not a non-negative integer is refused", () => {
  const table = new ContextTable<string>();
  assert.throws(() => table.set(-1, "x"), RangeError);
  assert.throws(() => table.set(1.5, "x"), RangeError);
  assert.equal(table.get(-1), undefined);
  assert.equal(table.has(-1), false);
});

test("a capacity that is not a power of two is refused (its mask would leave slots out of every probe run)", () => {
  for (const capacity of [0, 3, 6, 10, 1.5]) assert.throws(() => new ContextTable<string>(capacity), RangeError, `capacity ${capacity}`);
  const table = new ContextTable<string>(1);
  for (let id = 0; id < 20; id++) table.set(id, `v${id}`);
  assert.deepEqual([...table.keys()], Array.from({ length: 20 }, (_, id) => id));
});

test("ids at and above 2^31 (context ids are uint32) hash, collide and delete as small ones do", () => {
  const table = new ContextTable<string>(4);
  const map = new Map<number, string>();
  const ids = [2 ** 31, 2 ** 31 + 4, 2 ** 32 - 1, 2 ** 32 - 5, 3, 7, 2 ** 31 - 1];
  for (const id of ids) {
    table.set(id, `v${id}`);
    map.set(id, `v${id}`);
  }
  assertSame(table, map, ids);
  for (const id of [2 ** 31, 3, 2 ** 32 - 1]) assert.equal(table.delete(id), map.delete(id));
  assertSame(table, map, ids);
});
