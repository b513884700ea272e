import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { instrumentMemoryTrace, memoryTraceImports } from "../../src-host/bench/wasm-memory-trace.ts";

const WAT = `(module
  (memory (export "memory") 1)
  (func (export "copy") (param $from i32) (param $to i32) (result i32)
    (i64.store offset=8 (local.get $to) (i64.load (local.get $from)))
    (i32.load16_u offset=2 (local.get $from))))`;

async function traced(onAccess: (address: number, bytes: number, store: boolean) => void) {
  const path = createRequire(import.meta.url).resolve("binaryen");
  const binaryen = (await import(path)).default;
  const m = binaryen.parseText(WAT);
  const plain = m.emitBinary();
  m.dispose();
  const module = new WebAssembly.Module(await instrumentMemoryTrace(plain));
  const instance = new WebAssembly.Instance(module, { env: memoryTraceImports(onAccess) } as WebAssembly.Imports);
  return instance.exports as unknown as { memory: WebAssembly.Memory; copy(from: number, to: number): number };
}

test("every load and store is reported with its address (offset included), width and kind", async () => {
  const seen: Array<[number, number, boolean]> = [];
  const wasm = await traced((address, bytes, store) => seen.push([address, bytes, store]));
  assert.deepEqual(seen, []);
  wasm.copy(100, 200);
  // In the order the addresses are computed: a store's pointer operand comes before its value's load.
  assert.deepEqual(seen, [
    [208, 8, true],
    [100, 8, false],
    [102, 2, false],
  ]);
});

test("the traced module computes what the plain one does: values pass through the trace unchanged", async () => {
  const wasm = await traced(() => {});
  const bytes = new Uint8Array(wasm.memory.buffer);
  bytes.set([1, 2, 3, 4, 5, 6, 7, 8], 100);
  assert.equal(wasm.copy(100, 200), 3 | (4 << 8));
  assert.deepEqual([...bytes.subarray(208, 216)], [1, 2, 3, 4, 5, 6, 7, 8]);
});
