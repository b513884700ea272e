// Reads and writes the module's linear memory. Out-of-range pointers raise InvalidMemoryAccess, which the
// import wrappers turn into that status code instead of trapping the host. Views are cached and renewed only
// when the memory grows (growth detaches the old buffer).

import { isAscii, writeAscii } from "./ascii-text.ts";
import { RECENT_MAX_BYTES, RecentAsciiStrings } from "./recent-ascii-strings.ts";

export class InvalidMemoryAccess extends Error {}

const enc = new TextEncoder();
const dec = new TextDecoder();

export class GuestMemory {
  private buffer: ArrayBuffer;
  private u8: Uint8Array;
  private view: DataView;
  /** The same bytes as a Buffer, for its native Latin-1 decoding. */
  private bytes: Buffer;
  private readonly recent = new RecentAsciiStrings();

  constructor(
    private memory: WebAssembly.Memory,
    private malloc: (size: number) => number,
  ) {
    this.buffer = memory.buffer;
    this.u8 = new Uint8Array(this.buffer);
    this.view = new DataView(this.buffer);
    this.bytes = Buffer.from(this.buffer);
  }

  private refresh(): void {
    if (this.memory.buffer !== this.buffer) {
      this.buffer = this.memory.buffer;
      this.u8 = new Uint8Array(this.buffer);
      this.view = new DataView(this.buffer);
      this.bytes = Buffer.from(this.buffer);
    }
  }

  private check(ptr: number, len: number): void {
    // Growing a (non-shared) memory detaches its old buffer, and a view of a detached buffer is 0 bytes long: the
    // view's length, which V8 reads inline, is the test, where the memory.buffer getter costs a call into V8 (about
    // 13 ns) and the buffer's byteLength getter about 4 ns, on every access.
    let size = this.u8.length;
    if (size === 0) {
      this.refresh();
      size = this.u8.length;
    }
    if (ptr < 0 || len < 0 || ptr + len > size) throw new InvalidMemoryAccess(`${ptr}+${len}`);
  }

  read(ptr: number, len: number): Uint8Array {
    ptr >>>= 0;
    len >>>= 0;
    this.check(ptr, len);
    return this.u8.slice(ptr, ptr + len);
  }

  /** The bytes in place, valid until the module runs again (it may change them or grow its memory): for a callee that
   *  copies them at once. */
  bytesAt(ptr: number, len: number): Uint8Array {
    ptr >>>= 0;
    len >>>= 0;
    this.check(ptr, len);
    return this.u8.subarray(ptr, ptr + len);
  }

  /** A view of all of memory, once [ptr, ptr + len) is checked to lie in it: for a callee that copies that range at
   *  once. */
  checkedView(ptr: number, len: number): DataView {
    this.check(ptr >>> 0, len >>> 0);
    return this.view;
  }

  readString(ptr: number, len: number): string {
    ptr >>>= 0;
    len >>>= 0;
    this.check(ptr, len);
    // Header names, shared-data keys and property paths are short ASCII, and mostly the ones read lately: those are
    // found again by their bytes (recent-ascii-strings.ts), others read by a native Latin-1 decode (three times faster
    // than a TextDecoder or a string built a character at a time); anything else goes through UTF-8.
    if (len <= RECENT_MAX_BYTES) {
      const s = this.recent.read(this.bytes, this.view, ptr, len);
      if (s !== null) return s;
    }
    return dec.decode(this.u8.subarray(ptr, ptr + len));
  }

  writeU32(ptr: number, value: number): void {
    ptr >>>= 0;
    this.check(ptr, 4);
    this.view.setUint32(ptr, value >>> 0, true);
  }

  writeU64(ptr: number, value: bigint): void {
    ptr >>>= 0;
    this.check(ptr, 8);
    this.view.setBigUint64(ptr, BigInt.asUintN(64, value), true);
  }

  /**
   * Returns a value to the module the way Envoy does: the bytes are copied into memory allocated with the
   * module's malloc, and the pointer and length are written to the out-params. An empty value gets ptr 0 and
   * len 0 (no allocation). Returns false when malloc fails.
   */
  returnBytes(retPtrPtr: number, retLenPtr: number, value: Uint8Array | string): boolean {
    if (typeof value === "string") {
      const text = value;
      if (isAscii(text)) return this.returnWritten(retPtrPtr, retLenPtr, text.length, (u8, at) => writeAscii(u8, at, text));
    }
    return this.returnCopy(retPtrPtr, retLenPtr, typeof value === "string" ? enc.encode(value) : value);
  }

  /** As returnBytes, for bytes copied as they are (cpp-host wasm.h WasmBase::copyToPointerSize: malloc, memcpy). */
  returnCopy(retPtrPtr: number, retLenPtr: number, data: Uint8Array): boolean {
    const size = data.length;
    const ptr = this.allocateReturned(retPtrPtr, retLenPtr, size);
    if (ptr < 0) return false;
    if (size > 0) {
      this.u8.set(data, ptr);
      this.writeOutParams(retPtrPtr, retLenPtr, ptr, size);
    }
    return true;
  }

  /**
   * As returnBytes, for a value of `size` bytes that `write` puts straight into the module's memory at `at`
   * (no intermediate copy on the host).
   */
  returnWritten(retPtrPtr: number, retLenPtr: number, size: number, write: (u8: Uint8Array, at: number) => void): boolean {
    const ptr = this.allocateReturned(retPtrPtr, retLenPtr, size);
    if (ptr < 0) return false;
    if (size > 0) {
      write(this.u8, ptr);
      this.writeOutParams(retPtrPtr, retLenPtr, ptr, size);
    }
    return true;
  }

  /** The address and size of a returned value, into out-params allocateReturned checked (a memory only grows, and
   *  its check of the new allocation renewed the views after malloc). */
  private writeOutParams(retPtrPtr: number, retLenPtr: number, ptr: number, size: number): void {
    this.view.setUint32(retPtrPtr >>> 0, ptr, true);
    this.view.setUint32(retLenPtr >>> 0, size, true);
  }

  /** Checks the out-params and allocates `size` bytes in the module: their address, 0 for an empty value (the
   *  out-params then written: ptr 0, len 0), or -1 when malloc fails. */
  private allocateReturned(retPtrPtr: number, retLenPtr: number, size: number): number {
    this.check(retPtrPtr >>> 0, 4);
    this.check(retLenPtr >>> 0, 4);
    if (size === 0) {
      this.writeU32(retPtrPtr, 0);
      this.writeU32(retLenPtr, 0);
      return 0;
    }
    const ptr = this.malloc(size) >>> 0;
    if (ptr === 0) return -1;
    this.check(ptr, size);
    return ptr;
  }
}
