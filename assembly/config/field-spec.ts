// Description of one scalar configuration key: its JSON type, accepted values and where the value goes.
import { PickerConfig } from "./picker-config";
import { isClusterName, isHeaderName, isHttpPath, isMetricName, isVisibleText } from "./string-formats";

export enum FieldKind {
  /** Any finite number in the range. */
  Number = 0,
  /** An integral number in the range. */
  Integer = 1,
  Boolean = 2,
  /** A string checked by its TextFormat. */
  Text = 3,
  /** One of a fixed list of strings; the value's number is the option's index. */
  Choice = 4,
}

export enum TextFormat {
  /** A header name stored lower-cased, or "" to disable. */
  HeaderName = 0,
  /** An origin-form path starting with "/". */
  HttpPath = 1,
  /** A Prometheus metric name, or "". */
  MetricName = 2,
  /** A gateway cluster name: 1..255 visible ASCII characters. */
  ClusterName = 3,
  /** A credential: any string up to 1024 characters (never echoed in messages). */
  Credential = 4,
  /** A key prefix: up to 64 visible ASCII characters, or "". */
  KeyPrefix = 5,
}

/** A checked value ready to store. */
export class FieldValue {
  number: f64 = 0;
  text: string = "";
  flag: bool = false;
  /** The spec's target (a setter shared by several keys writes there). */
  target: i32 = -1;
}

export type FieldSetter = (c: PickerConfig, v: FieldValue) => void;

/** Integral values print without a fraction. */
export function formatNumber(v: f64): string {
  if (v == Math.floor(v) && Math.abs(v) < 9.2e18) return (<i64>v).toString();
  return v.toString();
}

export class FieldSpec {
  /** Set only by the constructor helpers below. */
  kind: i32 = FieldKind.Number;
  min: f64 = 0;
  max: f64 = 0;
  /** The range excludes min. */
  minExclusive: bool = false;
  /** 0 is accepted in addition to the range (a "0 disables" key). */
  zeroAllowed: bool = false;
  format: i32 = 0;
  options: Array<string> = [];
  /** For a setter shared by several keys: which of its slots this key writes (e.g. a scorer's weight). */
  target: i32 = -1;

  constructor(readonly path: string, readonly set: FieldSetter) {}

  /** What the key accepts, for error messages: "a number in [0, 1000]". */
  expectation(): string {
    const kind = this.kind;
    if (kind == FieldKind.Boolean) return "true or false";
    if (kind == FieldKind.Choice) return "one of \"" + this.options.join("\", \"") + "\"";
    if (kind == FieldKind.Text) {
      if (this.format == TextFormat.HeaderName) return "\"\" or a header name (HTTP token characters)";
      if (this.format == TextFormat.HttpPath) return "a path starting with \"/\" (visible ASCII)";
      if (this.format == TextFormat.ClusterName) return "a cluster name (1 to 255 visible ASCII characters)";
      if (this.format == TextFormat.Credential) return "a string of at most 1024 characters";
      if (this.format == TextFormat.KeyPrefix) return "\"\" or up to 64 visible ASCII characters";
      return "\"\" or a Prometheus metric name";
    }
    const range =
      (this.minExclusive ? "(" : "[") + formatNumber(this.min) + ", " + formatNumber(this.max) + "]";
    const what = kind == FieldKind.Integer ? "an integer in " : "a number in ";
    return (this.zeroAllowed ? "0 or " : "") + what + range;
  }

  /** Whether the JSON number v is acceptable. */
  acceptsNumber(v: f64): bool {
    if (this.kind != FieldKind.Number && this.kind != FieldKind.Integer) return false;
    if (!isFinite(v)) return false;
    if (this.kind == FieldKind.Integer && v != Math.floor(v)) return false;
    if (this.zeroAllowed && v == 0) return true;
    const aboveMin = this.minExclusive ? v > this.min : v >= this.min;
    return aboveMin && v <= this.max;
  }

  /** Checks the JSON string s and normalizes it into out; false if s is not acceptable. */
  acceptsText(s: string, out: FieldValue): bool {
    if (this.kind == FieldKind.Choice) {
      const i = this.options.indexOf(s);
      if (i < 0) return false;
      out.text = s;
      out.number = i;
      return true;
    }
    if (this.kind != FieldKind.Text) return false;
    const format = this.format;
    if (format == TextFormat.HeaderName) {
      if (s.length != 0 && !isHeaderName(s)) return false;
      out.text = s.toLowerCase();
      return true;
    }
    if (format == TextFormat.ClusterName) {
      if (!isClusterName(s)) return false;
    } else if (format == TextFormat.Credential) {
      if (s.length > 1024) return false;
    } else if (format == TextFormat.KeyPrefix) {
      if (s.length > 64 || !isVisibleText(s)) return false;
    } else if (format == TextFormat.HttpPath) {
      if (!isHttpPath(s)) return false;
    } else if (s.length != 0 && !isMetricName(s)) {
      return false;
    }
    out.text = s;
    return true;
  }
}

export function numberField(path: string, min: f64, max: f64, set: FieldSetter): FieldSpec {
  const f = new FieldSpec(path, set);
  f.kind = FieldKind.Number;
  f.min = min;
  f.max = max;
  return f;
}

/** A number in (min, max]. */
export function positiveFractionField(path: string, min: f64, max: f64, set: FieldSetter): FieldSpec {
  const f = numberField(path, min, max, set);
  f.minExclusive = true;
  return f;
}

/** 0, or a number in [min, max]. */
export function zeroOrNumberField(path: string, min: f64, max: f64, set: FieldSetter): FieldSpec {
  const f = numberField(path, min, max, set);
  f.zeroAllowed = true;
  return f;
}

export function integerField(path: string, min: f64, max: f64, set: FieldSetter): FieldSpec {
  const f = numberField(path, min, max, set);
  f.kind = FieldKind.Integer;
  return f;
}

export function booleanField(path: string, set: FieldSetter): FieldSpec {
  const f = new FieldSpec(path, set);
  f.kind = FieldKind.Boolean;
  return f;
}

export function textField(path: string, format: i32, set: FieldSetter): FieldSpec {
  const f = new FieldSpec(path, set);
  f.kind = FieldKind.Text;
  f.format = format;
  return f;
}

export function choiceField(path: string, options: Array<string>, set: FieldSetter): FieldSpec {
  const f = new FieldSpec(path, set);
  f.kind = FieldKind.Choice;
  f.options = options;
  return f;
}
