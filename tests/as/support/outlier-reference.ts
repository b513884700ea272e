// The outlier rule of assembly/scheduling/outliers.ts written from its definition, by sorting, for specs to check
// the plugin's one-pass-per-step descent against.
import { OUTLIER_FACTOR } from "../../../assembly/scheduling/outliers";

/**
 * The highest of values (non-empty) that is no outlier: sorted from the highest, v[0..k) are outliers when
 * v[k - 1] - lo > OUTLIER_FACTOR * max(v[k] - lo, floor) and k <= max((m - 1) / 2, minOutliers); the largest such k
 * counts.
 */
export function highestInlierBySorting(values: Array<f64>, floor: f64, minOutliers: i32): f64 {
  const v = values.slice(0);
  v.sort((a: f64, b: f64): i32 => (a < b ? 1 : a > b ? -1 : 0));
  const m = v.length;
  const lo = v[m - 1];
  const allowed = min<i32>(max<i32>((m - 1) >> 1, minOutliers), m - 1);
  for (let k = allowed; k >= 1; k--) {
    if (v[k - 1] - lo > OUTLIER_FACTOR * max<f64>(v[k] - lo, floor)) return v[k];
  }
  return v[0];
}
