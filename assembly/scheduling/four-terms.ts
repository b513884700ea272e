// The default totals' four weighted terms (queue, KV, prefix, in-flight scores), added left to right as
// totalScores adds one term per scorer. Every pass that sums them uses this one spelling, so each gets the same
// total to the bit.

/** w0 * a0 + w1 * a1 + w2 * a2 + w3 * a3, added left to right. */
// @ts-ignore: decorator
@inline
export function fourTerms(w0: f64, a0: f64, w1: f64, a1: f64, w2: f64, a2: f64, w3: f64, a3: f64): f64 {
  let sum = w0 * a0;
  sum = sum + w1 * a1;
  sum = sum + w2 * a2;
  return sum + w3 * a3;
}

/** fourTerms of two candidates' lanes (SIMD build). */
// @ts-ignore: decorator
@inline
export function fourTermsPair(v0: v128, a0: v128, v1: v128, a1: v128, v2: v128, a2: v128, v3: v128, a3: v128): v128 {
  let sum = f64x2.mul(v0, a0);
  sum = f64x2.add(sum, f64x2.mul(v1, a1));
  sum = f64x2.add(sum, f64x2.mul(v2, a2));
  return f64x2.add(sum, f64x2.mul(v3, a3));
}
