import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { instrumentOpCount, opsCounted } from "../../src-host/bench/wasm-op-count.ts";

const WAT = `(module
  (func (export "sum") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $s (i32.add (local.get $s) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $s))
  (func (export "choose") (param $x i32) (result i32)
    (if (result i32) (local.get $x)
      (then (i32.mul (i32.add (local.get $x) (i32.const 1)) (i32.const 3)))
      (else (i32.const 0))))
  (func (export "early") (param $x i32) (result i32)
    (block $out
      (br_if $out (local.get $x))
      (drop (i32.add (i32.add (i32.const 1) (i32.const 2)) (i32.const 3))))
    (i32.const 7)))`;

async function counted(): Promise<{ ops: (f: () => unknown) => number; exports: Record<string, (x: number) => number> }> {
  const path = createRequire(import.meta.url).resolve("binaryen");
  const binaryen = (await import(path)).default;
  const m = binaryen.parseText(WAT);
  const plain = m.emitBinary();
  m.dispose();
  const instance = new WebAssembly.Instance(new WebAssembly.Module(await instrumentOpCount(plain)));
  const exports = instance.exports as unknown as Record<string, (x: number) => number>;
  return {
    exports,
    ops(f) {
      const before = opsCounted(instance);
      f();
      return Number(opsCounted(instance) - before);
    },
  };
}

test("a loop's operations grow by the same count per iteration, the same on every run, the results unchanged", async () => {
  const { ops, exports } = await counted();
  assert.equal(exports.sum(10), 45);
  const at = (n: number) => ops(() => exports.sum(n));
  const perIteration = at(11) - at(10);
  assert.ok(perIteration > 0);
  assert.equal(at(20) - at(10), 10 * perIteration);
  assert.equal(at(0) + 5 * perIteration, at(5));
  assert.equal(at(7), at(7));
});

test("an if counts only the arm that runs, a block only the run before a branch taken out of it", async () => {
  const { ops, exports } = await counted();
  assert.equal(exports.choose(2), 9);
  // then: mul(add(get, const), const) is five expressions, else: one const.
  assert.equal(ops(() => exports.choose(1)) - ops(() => exports.choose(0)), 4);
  assert.equal(exports.early(1), 7);
  // The drop(add(add(1, 2), 3)) after the taken br_if: six expressions not run.
  assert.equal(ops(() => exports.early(0)) - ops(() => exports.early(1)), 6);
});
