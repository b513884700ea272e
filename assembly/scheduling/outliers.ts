// Outliers among load values (waiting requests, requests in flight, the load guard's loads). A wedged engine whose
// /metrics still answers climbs to hundreds waiting; several of them must neither set the range the other pods'
// load scores are spread over nor inflate the mean the load guard compares with.
//
// The rule, over the present values sorted from the highest, v1 >= v2 >= ... >= vm, lo the lowest: the values v1 to
// vk are outliers when there is a jump below them, vk - lo > OUTLIER_FACTOR * max(v(k+1) - lo, floor), and they are
// a minority, k <= (m - 1) / 2 (or k <= minOutliers). Of several such jumps the lowest counts, so what is left is the
// majority's range. Values sharing vk are all outliers or none. Without a jump nothing changes; with one value above
// a jump it is the earlier rule (highest over 4 times the others' range, at least the floor).
export const OUTLIER_FACTOR: f64 = 4;

// highestInlier's passes: each moves down past at least one value, and any two together past a factor
// OUTLIER_FACTOR, so loads of pods need a handful; only values spread over many powers of 4 reach the bound (the
// lowest jump found by then counts).
const MAX_PASSES = 64;

/** Whether any of the values between lo and hi can be an outlier: a jump needs a spread over the factor × floor. */
// @ts-ignore: decorator
@inline
export function mayHaveOutliers(lo: f64, hi: f64, floor: f64): bool {
  return hi - lo > OUTLIER_FACTOR * floor;
}

/**
 * The highest of keys[0..n) that is no outlier (hi when none is). Keys below 0 (or NaN) are absent; lo and hi are
 * the lowest and highest present keys; floor (>= 0, not NaN) is the smallest spread that counts. Reads the keys once
 * per pass, descending from hi: a pass checks for a jump below the current value c (outliers: the keys >= c) and
 * otherwise moves c to the lowest key within a factor of c, since no jump can lie between them.
 */
export function highestInlier(keys: StaticArray<f64>, n: i32, lo: f64, hi: f64, floor: f64, minOutliers: i32): f64 {
  const m = min<i32>(n, keys.length);
  let top = hi;
  let c = hi;
  let allowed = -1;
  for (let pass = 0; pass < MAX_PASSES && mayHaveOutliers(lo, c, floor); pass++) {
    const reach = (c - lo) / OUTLIER_FACTOR;
    let below = lo; // the highest key under c
    let near = c; // the lowest key under c within the factor
    let above = 0;
    let present = 0;
    for (let i = 0; i < m; i++) {
      const k = unchecked(keys[i]);
      if (!(k >= 0)) continue;
      present++;
      if (k >= c) {
        above++;
      } else {
        if (k > below) below = k;
        if (k < near && k - lo >= reach) near = k;
      }
    }
    if (allowed < 0) allowed = max<i32>((present - 1) >> 1, minOutliers);
    if (above > allowed) break; // a lower c has more above it
    const gap = below - lo > floor ? below - lo : floor;
    if (c - lo > OUTLIER_FACTOR * gap) {
      top = below;
      c = below;
    } else {
      if (!(near < c)) break; // below - lo >= reach here, so only a subnormal reach leaves near at c
      c = near;
    }
  }
  return top;
}
