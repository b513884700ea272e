// Exponentially weighted failure rate of an endpoint: each outcome moves it a fraction alpha towards 1 (failed)
// or 0 (succeeded). Inputs are clamped so a bad configuration cannot push the rate outside [0, 1].
export function updateEwma(prev: f64, failed: bool, alpha: f64): f64 {
  const p = prev >= 0 ? (prev <= 1 ? prev : 1) : 0; // NaN -> 0
  const a = alpha >= 0 ? (alpha <= 1 ? alpha : 1) : 0;
  return p + a * ((failed ? 1.0 : 0.0) - p);
}
