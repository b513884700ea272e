// Which header-name lengths the request gate compares at all: a 64-bit mask with bit n set when some judged name is
// n bytes long, plus one length of 64 bytes or more (the override header's, should its name ever grow so long).
// A shift by 64 or more wraps (wasm i64.shl takes the count mod 64): such a name's bit would land on another
// length, and the gate would never see the client's copy of that header.

/** The mask bit of a judged name of `len` bytes; 0 for a name of 64 bytes or more (see longJudgedLength). */
export function judgedLengthBit(len: usize): u64 {
  return len < 64 ? <u64>1 << <u64>len : 0;
}

/** `len` when a judged name is 64 bytes or longer, else 0 (no header name is 0 bytes long and 64 or more). */
export function longJudgedLength(len: usize): usize {
  return len >= 64 ? len : 0;
}

/** Whether a name of keyLen bytes has a judged name's length: the mask below 64 bytes, the long length above. */
// @ts-ignore: decorator
@inline export function isJudgedLength(keyLen: usize, lengths: u64, longLength: usize): bool {
  return keyLen < 64 ? ((lengths >> <u64>keyLen) & 1) != 0 : keyLen == longLength;
}
