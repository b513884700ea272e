// Reads and writes the module's linear memory. Out-of-range pointers raise InvalidMemoryAccess, which the
// import wrappers turn into that status code instead of trapping the host.

export class InvalidMemoryAccess extends Error {}

const enc = new TextEncoder();
const dec = new TextDecoder();

export class GuestMemory {
  constructor(
    private memory: WebAssembly.Memory,
    private malloc: (size: number) => number,
  ) {}

  private bytes(): Uint8Array {
    return new Uint8Array(this.memory.buffer);
  }

  private check(ptr: number, len: number): void {
    if (ptr < 0 || len < 0 || ptr + len > this.memory.buffer.byteLength) throw new InvalidMemoryAccess(`${ptr}+${len}`);
  }

  read(ptr: number, len: number): Uint8Array {
    ptr >>>= 0;
    len >>>= 0;
    this.check(ptr, len);
    return this.bytes().slice(ptr, ptr + len);
  }

  readString(ptr: number, len: number): string {
    return dec.decode(this.read(ptr, len));
  }

  writeU32(ptr: number, value: number): void {
    ptr >>>= 0;
    this.check(ptr, 4);
    new DataView(this.memory.buffer).setUint32(ptr, value >>> 0, true);
  }

  writeU64(ptr: number, value: bigint): void {
    ptr >>>= 0;
    this.check(ptr, 8);
    new DataView(this.memory.buffer).setBigUint64(ptr, BigInt.asUintN(64, value), true);
  }

  /**
   * Returns a value to the module the way Envoy does: the bytes are copied into memory allocated with the
   * module's malloc, and the pointer and length are written to the out-params. An empty value gets ptr 0 and
   * len 0 (no allocation). Returns false when malloc fails.
   */
  returnBytes(retPtrPtr: number, retLenPtr: number, value: Uint8Array | string): boolean {
    const data = typeof value === "string" ? enc.encode(value) : value;
    this.check(retPtrPtr >>> 0, 4);
    this.check(retLenPtr >>> 0, 4);
    if (data.length === 0) {
      this.writeU32(retPtrPtr, 0);
      this.writeU32(retLenPtr, 0);
      return true;
    }
    const ptr = this.malloc(data.length) >>> 0;
    if (ptr === 0) return false;
    this.check(ptr, data.length);
    this.bytes().set(data, ptr);
    this.writeU32(retPtrPtr, ptr);
    this.writeU32(retLenPtr, data.length);
    return true;
  }
}
