// Budget-free conversion of a JSON number span to f64 (for configuration and metrics values).

// Exactly representable powers of ten: a mantissa below 2^53 scaled by one of them rounds correctly.
const EXACT_POWERS: StaticArray<f64> = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/** Parses the RFC 8259 number in [start, end); NaN if the span is not exactly one number. */
export function parseNumberF64(start: usize, end: usize): f64 {
  let p = start;
  if (p >= end) return NaN;
  const negative = load<u8>(p) == 0x2d;
  if (negative) p++;
  let mantissa: u64 = 0;
  let digits = 0; // significant digits kept in mantissa (at most 19)
  let scale: i32 = 0; // decimal exponent adjustment from dropped or fractional digits
  let intDigits = 0;
  while (p < end && <u32>load<u8>(p) - 0x30 < 10) {
    const d = <u32>load<u8>(p) - 0x30;
    if (digits < 19) {
      mantissa = mantissa * 10 + d;
      if (mantissa != 0) digits++;
    } else {
      scale++;
    }
    intDigits++;
    p++;
  }
  if (intDigits == 0) return NaN;
  if (p < end && load<u8>(p) == 0x2e) {
    p++;
    let fracDigits = 0;
    while (p < end && <u32>load<u8>(p) - 0x30 < 10) {
      const d = <u32>load<u8>(p) - 0x30;
      if (digits < 19) {
        mantissa = mantissa * 10 + d;
        if (mantissa != 0) digits++;
        scale--;
      }
      fracDigits++;
      p++;
    }
    if (fracDigits == 0) return NaN;
  }
  if (p < end && (load<u8>(p) | 0x20) == 0x65) {
    p++;
    let expNegative = false;
    if (p < end && (load<u8>(p) == 0x2b || load<u8>(p) == 0x2d)) {
      expNegative = load<u8>(p) == 0x2d;
      p++;
    }
    let e: i32 = 0;
    let expDigits = 0;
    while (p < end && <u32>load<u8>(p) - 0x30 < 10) {
      if (e < 100000) e = e * 10 + <i32>(<u32>load<u8>(p) - 0x30);
      expDigits++;
      p++;
    }
    if (expDigits == 0) return NaN;
    scale += expNegative ? -e : e;
  }
  if (p != end) return NaN;
  let value: f64;
  if (mantissa == 0) {
    value = 0;
  } else if (mantissa < (<u64>1 << 53) && scale >= -22 && scale <= 22) {
    value = <f64>mantissa;
    value = scale >= 0 ? value * unchecked(EXACT_POWERS[scale]) : value / unchecked(EXACT_POWERS[-scale]);
  } else if (scale < -400) {
    value = 0;
  } else if (scale > 400) {
    value = Infinity;
  } else if (scale < -300) {
    // Two steps so that the power of ten itself does not underflow before the denormal range.
    value = <f64>mantissa * Math.pow(10, <f64>(scale + 300)) * 1e-300;
  } else {
    value = <f64>mantissa * Math.pow(10, <f64>scale);
  }
  return negative ? -value : value;
}
