// The host's view of a module's linear memory stays right when the memory grows: inside a host call (the module's
// malloc grows it while a value is returned) and between calls (the module grows it itself).
import { test } from "node:test";
import assert from "node:assert/strict";
import { GuestMemory, InvalidMemoryAccess } from "../../src-host/host/guest-memory.ts";

const PAGE = 65536;

function u32At(memory: WebAssembly.Memory, ptr: number): number {
  return new DataView(memory.buffer).getUint32(ptr, true);
}

test("a value returned through a malloc that grows the memory lands in the grown memory, out-params too", () => {
  const memory = new WebAssembly.Memory({ initial: 1 });
  // Each allocation grows the memory by a page and hands out the start of the new page.
  const malloc = () => {
    const ptr = memory.buffer.byteLength;
    memory.grow(1);
    return ptr;
  };
  const mem = new GuestMemory(memory, malloc);
  for (const value of ["hello", "naïve café — 中文", new Uint8Array([1, 2, 3, 250])]) {
    assert.equal(mem.returnBytes(16, 20, value), true);
    const ptr = u32At(memory, 16);
    const len = u32At(memory, 20);
    const want = typeof value === "string" ? new TextEncoder().encode(value) : value;
    assert.equal(ptr, memory.buffer.byteLength - PAGE);
    assert.deepEqual(new Uint8Array(memory.buffer, ptr, len), want);
  }
});

test("reads and writes after the module grew its memory reach the new pages; past the end is refused", () => {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const mem = new GuestMemory(memory, () => 0);
  mem.writeU32(8, 7);
  assert.throws(() => mem.writeU32(PAGE + 8, 1), InvalidMemoryAccess);
  memory.grow(2);
  mem.writeU32(2 * PAGE + 4, 0xdeadbeef);
  assert.equal(u32At(memory, 2 * PAGE + 4), 0xdeadbeef);
  new Uint8Array(memory.buffer).set(new TextEncoder().encode("grown"), PAGE + 100);
  assert.equal(mem.readString(PAGE + 100, 5), "grown");
  assert.deepEqual([...mem.read(8, 4)], [7, 0, 0, 0]);
  assert.throws(() => mem.read(3 * PAGE - 2, 4), InvalidMemoryAccess);
});
