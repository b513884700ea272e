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

test("strings of every length up to 64 read as themselves, however their last word ends", () => {
  const { mem, put } = memoryWith();
  for (let len = 0; len <= 64; len++) {
    const s = Array.from({ length: len }, (_, i) => String.fromCharCode(0x21 + ((i * 7 + len) % 90))).join("");
    put(300, s);
    assert.equal(mem.readString(300, len), s);
    assert.equal(mem.readString(300, len), s, "found again");
    if (len > 0) {
      // Only the last byte changed: the repeat must be told apart by its final, partial word.
      const changed = s.slice(0, len - 1) + (s[len - 1] === "a" ? "b" : "a");
      put(300, changed);
      assert.equal(mem.readString(300, len), changed);
    }
  }
});

test("a string and the same bytes with a NUL byte added are different strings", () => {
  const { mem, put } = memoryWith();
  put(200, "abc\0def\0");
  assert.equal(mem.readString(200, 3), "abc");
  assert.equal(mem.readString(200, 4), "abc\0");
  assert.equal(mem.readString(200, 3), "abc");
  assert.equal(mem.readString(204, 4), "def\0");
  assert.equal(mem.readString(204, 3), "def");
});

test("a byte of 0x80 or above in any position, the partial last word included, is decoded as UTF-8", () => {
  const { mem, put } = memoryWith();
  for (const s of ["abcé", "é", "abcdé", "abcdefgé", "éabcdefg", "x".repeat(61) + "é"]) {
    put(400, "y".repeat(70));
    const n = put(400, s);
    assert.equal(mem.readString(400, n), s);
  }
});

test("a string that ends where memory ends reads no byte past it", () => {
  const { mem, put } = memoryWith();
  const end = 65536;
  for (const s of ["k", "ke", "key", "key1", "key12", "endpoint_picker/hint/v2/00ab12"]) {
    put(end - s.length, s);
    assert.equal(mem.readString(end - s.length, s.length), s);
  }
});
