import { KeptNameHash } from "../../assembly/endpoints/kept-name-hash";
import { hashNameBytes } from "../../assembly/endpoints/name-hash";

function bytesOf(s: string): ArrayBuffer {
  return String.UTF8.encode(s);
}

function check(kept: KeptNameHash, name: ArrayBuffer, len: i32): void {
  const ptr = changetype<usize>(name);
  expect<u64>(kept.of(ptr, <usize>len)).toBe(hashNameBytes(ptr, <usize>len));
}

describe("KeptNameHash", () => {
  it("gives hashNameBytes for every name, whichever came before", () => {
    const kept = new KeptNameHash();
    const names = ["meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-7B-Instruct-AWQ"];
    for (let n = 0; n < names.length; n++) {
      const name = bytesOf(names[n]);
      check(kept, name, name.byteLength);
      check(kept, name, name.byteLength);
      // The same length, one byte apart at every place (in a whole word and in the tail).
      for (let at = 0; at < name.byteLength; at++) {
        const other = name.slice(0);
        store<u8>(changetype<usize>(other) + <usize>at, load<u8>(changetype<usize>(other) + <usize>at) ^ 1);
        check(kept, other, other.byteLength);
        check(kept, name, name.byteLength);
      }
    }
    const model = bytesOf(names[0]);
    // A prefix of the kept name, the empty name, names around the kept length.
    for (let len = 0; len <= model.byteLength; len++) check(kept, model, len);
    const long = new ArrayBuffer(300);
    for (let i = 0; i < 300; i++) store<u8>(changetype<usize>(long) + <usize>i, <u8>(i * 7));
    for (let len = 250; len <= 300; len++) {
      check(kept, long, len);
      check(kept, long, len);
    }
  });
});
