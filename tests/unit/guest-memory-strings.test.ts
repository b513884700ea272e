// The host keeps the short ASCII strings a module passed lately and finds a repeat by its bytes: whatever it keeps,
// readString must return exactly the bytes now in memory (bytes changed in place, two strings in one slot, UTF-8).
import { test } from "node:test";
import assert from "node:assert/strict";
import { GuestMemory } from "../../src-host/host/guest-memory.ts";

const enc = new TextEncoder();

function memoryWith(): { mem: GuestMemory; put: (at: number, s: string) => number } {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const mem = new GuestMemory(memory, () => 0);
  const put = (at: number, s: string) => {
    const b = enc.encode(s);
    new Uint8Array(memory.buffer).set(b, at);
    return b.length;
  };
  return { mem, put };
}

test("a string read again after its bytes changed in place is the new bytes", () => {
  const { mem, put } = memoryWith();
  const n = put(100, "endpoint_picker/hint/v2/00ab12");
  assert.equal(mem.readString(100, n), "endpoint_picker/hint/v2/00ab12");
  put(100, "endpoint_picker/hint/v2/00ab13");
  assert.equal(mem.readString(100, n), "endpoint_picker/hint/v2/00ab13");
  assert.equal(mem.readString(100, n - 1), "endpoint_picker/hint/v2/00ab1");
  assert.equal(mem.readString(100, 0), "");
});

test("many strings, read over and over in turn, each read as itself", () => {
  const { mem, put } = memoryWith();
  const strings = Array.from({ length: 600 }, (_, i) => `key-${i.toString(36)}-${"x".repeat(i % 50)}`);
  const at = strings.map((s, i) => [i * 100, put(i * 100, s)] as const);
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < strings.length; i++) assert.equal(mem.readString(at[i][0], at[i][1]), strings[i]);
  }
});

test("text that is not ASCII, or longer than a header name, is decoded as UTF-8", () => {
  const { mem, put } = memoryWith();
  for (const s of ["naïve café", "中文", "🙂", "a".repeat(65), "b".repeat(64) + "é"]) {
    const n = put(1000, s);
    assert.equal(mem.readString(1000, n), s);
  }
});
