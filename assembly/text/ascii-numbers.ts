// Numbers written as ASCII into linear memory, without allocating: decimal for the RESP protocol's lengths and the
// replica hints' times, 16 lower-case hex digits for chain hashes and gateway numbers.

const HEX: string = "0123456789abcdef";

/** Decimal digits of v (1 for 0; v < 0 counts as 0). */
export function decimalDigits(v: i64): i32 {
  let digits = 1;
  for (let x = v; x >= 10; x /= 10) digits++;
  return digits;
}

/** Writes v (v < 0 as 0) in decimal at out; returns the digits written (decimalDigits(v)). */
export function writeDecimal(out: usize, v: i64): i32 {
  if (v < 0) v = 0;
  const digits = decimalDigits(v);
  for (let i = digits - 1; i >= 0; i--) {
    store<u8>(out + <usize>i, <u8>(48 + <i32>(v % 10)));
    v /= 10;
  }
  return digits;
}

/** Writes v as exactly 16 lower-case hex digits at out. */
export function writeHex16(out: usize, v: u64): void {
  for (let i = 15; i >= 0; i--) {
    store<u8>(out + <usize>i, <u8>HEX.charCodeAt(<i32>(v & 15)));
    v >>= 4;
  }
}
