// Properties every scalar key of the schema must have, checked through parseConfig.
import { configFields } from "../../assembly/config/config-schema";

const CONFIG_FIELDS = configFields();
import { FieldKind, FieldSpec, formatNumber } from "../../assembly/config/field-spec";
import { PluginConfig } from "../../assembly/config/plugin-config";
import { parseConfig } from "../../assembly/config/parse-config";

let held: ArrayBuffer = new ArrayBuffer(0);

function higress(doc: string): string {
  held = String.UTF8.encode(doc);
  return parseConfig(changetype<usize>(held), <usize>held.byteLength, false, new PluginConfig());
}

/**
 * A document setting `path` to valueJson. The other settings keep the prefix index small, so that the
 * index-size checks never reject the key under test.
 */
function docSetting(path: string, valueJson: string): string {
  const dot = path.indexOf(".");
  const section = dot < 0 ? "" : path.substring(0, dot);
  const key = dot < 0 ? path : path.substring(dot + 1);
  const setting = '"' + key + '": ' + valueJson;
  if (path == "prefix.capacityPerEndpoint") {
    return '{"prefix": {' + setting + '}, "limits": {"maxEndpoints": 1, "maxIndexBytes": 1073741824}}';
  }
  if (section == "prefix") return '{"prefix": {"capacityPerEndpoint": 1, ' + setting + "}}";
  // weights.session counts only with session.header.
  const small = '"prefix": {"capacityPerEndpoint": 1}' + (path == "weights.session" ? ', "session": {"header": "x-s"}' : "");
  if (section.length == 0) return "{" + small + ", " + setting + "}";
  return "{" + small + ', "' + section + '": {' + setting + "}}";
}

function isNumeric(f: FieldSpec): bool {
  return f.kind == FieldKind.Number || f.kind == FieldKind.Integer;
}

/** Setting f alone to valueJson gives exactly one error, naming f and showing the value. */
function expectRejected(f: FieldSpec, valueJson: string, shown: string = valueJson): void {
  const msg = higress(docSetting(f.path, valueJson));
  expect(msg).toBe(
    "invalid plugin config: " + f.path + ": expected " + f.expectation() + ", got " + shown,
    f.path + " = " + valueJson,
  );
}

describe("every scalar key", () => {
  it("lives in a documented section or at the top level and is unique", () => {
    const sections = ["weights", "scoring", "prefix", "loadGuard", "session", "feedback", "metrics", "limits", "debug"];
    const seen = new Set<string>();
    for (let i = 0; i < CONFIG_FIELDS.length; i++) {
      const path = CONFIG_FIELDS[i].path;
      expect(seen.has(path)).toBe(false, path);
      seen.add(path);
      const dot = path.indexOf(".");
      if (dot >= 0) expect(sections.includes(path.substring(0, dot))).toBe(true, path);
    }
    // 7 weights, 5 scoring, 13 prefix, 2 loadGuard, 1 session, 2 feedback, 6 metrics, 5 limits, 1 debug, seed, 4 Higress keys.
    expect(CONFIG_FIELDS.length).toBe(47);
  });

  it("rejects a value of the wrong JSON type, naming the key", () => {
    for (let i = 0; i < CONFIG_FIELDS.length; i++) {
      const f = CONFIG_FIELDS[i];
      expectRejected(f, f.kind == FieldKind.Boolean || isNumeric(f) ? '"1"' : "true");
      expectRejected(f, "null");
      expectRejected(f, "[1]", "an array");
      expectRejected(f, '{"a": 1}', "an object");
    }
  });

  it("accepts the ends of a numeric range and rejects just outside them", () => {
    for (let i = 0; i < CONFIG_FIELDS.length; i++) {
      const f = CONFIG_FIELDS[i];
      if (!isNumeric(f)) continue;
      // Above 2^53 the next representable integer is 2 away.
      const integerStep = f.max >= 9007199254740992 ? 2.0 : 1.0;
      const step = f.kind == FieldKind.Integer ? integerStep : Math.max(f.max - f.min, 1) / 1024;
      expect(higress(docSetting(f.path, formatNumber(f.max)))).toBe("", f.path);
      expectRejected(f, formatNumber(f.max + step));
      if (f.minExclusive) {
        expectRejected(f, formatNumber(f.min));
        expect(higress(docSetting(f.path, formatNumber(f.min + step)))).toBe("", f.path);
      } else {
        // weights.* at 0 leaves the other weights positive.
        expect(higress(docSetting(f.path, formatNumber(f.min)))).toBe("", f.path);
        const below = f.min - step;
        if (f.zeroAllowed && below == 0) expect(higress(docSetting(f.path, "0"))).toBe("", f.path);
        else expectRejected(f, formatNumber(below));
      }
      if (f.kind == FieldKind.Integer) expectRejected(f, formatNumber(f.min + 0.5));
    }
  });
});
