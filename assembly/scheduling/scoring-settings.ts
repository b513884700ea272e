// The configured weight of every scorer and the values of their config keys, defaults from the scorers
// themselves (scorer-list.ts). The total score divides by weightSum(), so a signal a candidate lacks earns it
// nothing rather than being dropped from its average. A negative or NaN weight counts as 0.
import { scorerKinds } from "./scorer-list";

// @ts-ignore: decorator
@inline
export function effectiveWeight(w: f64): f64 {
  return w > 0 && w < Infinity ? w : 0;
}

export class ScoringSettings {
  /** One per scorer, in list order. */
  readonly weights: StaticArray<f64>;
  /** Every scorer's config values, scorer after scorer in list order. */
  readonly values: StaticArray<f64>;

  constructor() {
    const kindList = scorerKinds();
    let count = 0;
    for (let k = 0; k < kindList.length; k++) count += kindList[k].params.length;
    this.weights = new StaticArray<f64>(kindList.length);
    this.values = new StaticArray<f64>(count);
    let v = 0;
    for (let k = 0; k < kindList.length; k++) {
      const kind = kindList[k];
      unchecked((this.weights[k] = kind.defaultWeight));
      for (let p = 0; p < kind.params.length; p++) unchecked((this.values[v++] = kind.params[p].defaultValue));
    }
  }

  /** Summed in list order, as the totals are. */
  weightSum(): f64 {
    let sum: f64 = 0;
    for (let k = 0; k < this.weights.length; k++) sum += effectiveWeight(unchecked(this.weights[k]));
    return sum;
  }

  /** The weight of the scorer called name (NaN when there is none). */
  weight(name: string): f64 {
    const k = weightIndex(name);
    return k >= 0 ? this.weights[k] : NaN;
  }

  setWeight(name: string, w: f64): void {
    const k = weightIndex(name);
    if (k >= 0) this.weights[k] = w;
  }

  /** The value of a scorer's config key, e.g. "prefix.lambda" (NaN when no scorer has it). */
  value(key: string): f64 {
    const v = valueIndex(key);
    return v >= 0 ? this.values[v] : NaN;
  }

  setValue(key: string, x: f64): void {
    const v = valueIndex(key);
    if (v >= 0) this.values[v] = x;
  }

  copyFrom(o: ScoringSettings): void {
    for (let k = 0; k < this.weights.length; k++) this.weights[k] = o.weights[k];
    for (let v = 0; v < this.values.length; v++) this.values[v] = o.values[v];
  }
}

/** Index into ScoringSettings.weights of the scorer called name, or -1. */
export function weightIndex(name: string): i32 {
  const kindList = scorerKinds();
  for (let k = 0; k < kindList.length; k++) if (kindList[k].name == name) return k;
  return -1;
}

/** Index into ScoringSettings.values of a scorer's config key, or -1. */
export function valueIndex(key: string): i32 {
  const kindList = scorerKinds();
  let v = 0;
  for (let k = 0; k < kindList.length; k++) {
    const params = kindList[k].params;
    for (let p = 0; p < params.length; p++) {
      if (params[p].key == key) return v;
      v++;
    }
  }
  return -1;
}
