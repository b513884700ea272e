// Exponentially weighted failure rate of an endpoint: each outcome moves it a fraction alpha towards 1 (failed)
// or 0 (succeeded). Inputs are clamped so a bad configuration cannot push the rate outside [0, 1].
export function updateEwma(prev: f64, failed: bool, alpha: f64): f64 {
  const p = prev >= 0 ? (prev <= 1 ? prev : 1) : 0; // NaN -> 0
  const a = alpha >= 0 ? (alpha <= 1 ? alpha : 1) : 0;
  return p + a * ((failed ? 1.0 : 0.0) - p);
}

// The rate halved every halfLifeMs since it last moved: an endpoint the failure score keeps away gets no outcome that
// could clear it, so without time it would stay avoided after it recovered. halfLifeMs <= 0 keeps the rate as it is.
// A rate faded below FORGOTTEN_RATE is none: a residue would still lose every tie to an endpoint that never failed.
export const FORGOTTEN_RATE: f64 = 1.0 / 1024;
/** Half-lives after which any rate (at most 1) has faded below FORGOTTEN_RATE: log2(1 / FORGOTTEN_RATE) = 10, and one
 *  more so rounding in the piecewise decay cannot leave a rate at the threshold. */
export const FADE_HALF_LIVES: f64 = 11;

export function decayedEwma(ewma: f64, elapsedMs: f64, halfLifeMs: f64): f64 {
  if (!(ewma > 0) || !(halfLifeMs > 0) || !(elapsedMs > 0)) return ewma;
  const rate = ewma * Math.pow(2, -elapsedMs / halfLifeMs);
  return rate >= FORGOTTEN_RATE ? rate : 0;
}
