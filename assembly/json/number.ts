// Budget-free conversion of a decimal number span to f64: JSON numbers (configuration and metrics values) and
// the unsigned decimal forms of Go's ParseFloat that Prometheus writes (endpoints/prometheus.ts).

/** The grammar a span must follow. */
export enum DecimalSyntax {
  /** RFC 8259: an optional '-', integer digits, an optional '.' with digits, an optional exponent. */
  Json,
  /** No sign (the caller reads it); digits before or after an optional '.' ("5.", ".5"), an optional exponent. */
  Unsigned,
}

// Powers of ten exactly representable as f64.
const EXACT_POWERS: StaticArray<f64> = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/** Parses the RFC 8259 number in [start, end); NaN if the span is not exactly one number. */
export function parseNumberF64(start: usize, end: usize): f64 {
  return parseDecimal(start, end, DecimalSyntax.Json);
}

/** Parses the number in [start, end) written in `syntax`; NaN if the span is not exactly one number. */
export function parseDecimal(start: usize, end: usize, syntax: DecimalSyntax): f64 {
  const json = syntax == DecimalSyntax.Json;
  let p = start;
  if (p >= end) return NaN;
  const negative = json && load<u8>(p) == 0x2d;
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
  if (json && intDigits == 0) return NaN;
  let fracDigits = 0;
  if (p < end && load<u8>(p) == 0x2e) {
    p++;
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
    if (json && fracDigits == 0) return NaN;
  }
  if (intDigits + fracDigits == 0) return NaN;
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
  const value = scaleByPowerOfTen(mantissa, scale);
  return negative ? -value : value;
}

// mantissa * 10^scale. Exact when both operands are exact (mantissa < 2^53, |scale| <= 22), the common case;
// dividing by 10^-scale rounds correctly more often than multiplying by its inexact inverse.
function scaleByPowerOfTen(mantissa: u64, scale: i32): f64 {
  if (mantissa == 0) return 0;
  let v = <f64>mantissa;
  if (scale >= 0) {
    if (scale <= 22) return v * unchecked(EXACT_POWERS[scale]);
    if (scale > 400) return Infinity;
    return v * Math.pow(10, <f64>scale);
  }
  if (scale >= -22) return v / unchecked(EXACT_POWERS[-scale]);
  if (scale < -400) return 0;
  // Two steps so that the power of ten itself does not overflow before the denormal range.
  if (scale < -300) {
    v /= 1e300;
    scale += 300;
  }
  return v / Math.pow(10, <f64>-scale);
}
