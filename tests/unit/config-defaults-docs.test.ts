// docs/config.md's default of each key that is not a scorer's (scorer-docs.test.ts covers those) is the value the
// parser starts from: the key's setter in config-schema.ts, redis-section.ts or discovery-section.ts names the
// field it writes, and that field's initializer in PickerConfig, RedisConfig or DiscoveryConfig is the default.
// docs-config-parser.test.ts only checks that the documented default is an accepted value.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const SETTER_FILES = ["assembly/config/config-schema.ts", "assembly/config/redis-section.ts", "assembly/config/discovery-section.ts"];
const CONFIG_CLASSES: Record<string, { file: string; name: string }> = {
  "": { file: "assembly/config/picker-config.ts", name: "PickerConfig" },
  redis: { file: "assembly/config/redis-config.ts", name: "RedisConfig" },
  discovery: { file: "assembly/config/discovery-config.ts", name: "DiscoveryConfig" },
};

interface Row { key: string; type: string; default: string }

const rows: Row[] = readFileSync("docs/config.md", "utf8")
  .split("\n")
  .filter((l) => /^\| `[^`]+` \|/.test(l))
  .map((l) => l.split(" | ").map((c) => c.trim()))
  .map((c) => ({ key: c[0].replace(/^\| /, "").replace(/`/g, ""), type: c[1], default: c[2].replace(/`/g, "") }));

/** key -> [section ("" for PickerConfig's own fields), field name], from each `*Field("key", ..., c[.section].field = v...` */
function setterTargets(): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const file of SETTER_FILES) {
    const source = readFileSync(file, "utf8");
    for (const m of source.matchAll(/\b[a-zA-Z]+Field\(\s*"([\w.]+)",[^\n]*?\{ c\.(?:(redis|discovery)\.)?(\w+) = /g)) {
      out.set(m[1], [m[2] ?? "", m[3]]);
    }
  }
  return out;
}

function assemblySources(dir = "assembly"): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? assemblySources(p) : p.endsWith(".ts") ? [readFileSync(p, "utf8")] : [];
  });
}

/** The value of an initializer: a literal, an exported constant, or MetricPolicy.<member> (its name as configured). */
function resolve(expr: string, sources: string[]): string {
  if (/^(-?[\d.]+|true|false|"[^"]*")$/.test(expr)) return expr.replace(/^"(.*)"$/, "$1");
  const policy = /^MetricPolicy\.(\w+)$/.exec(expr);
  if (policy) return policy[1].toLowerCase();
  for (const s of sources) {
    const m = new RegExp(String.raw`export const ${expr}(?:: \w+)? = ([^;]+);`).exec(s);
    if (m) return resolve(m[1].trim(), sources);
  }
  throw new Error(`cannot resolve the initializer ${expr}`);
}

function initializer(section: string, field: string, sources: string[]): string {
  const { file, name } = CONFIG_CLASSES[section];
  const body = new RegExp(String.raw`export class ${name} \{([\s\S]*?)\n\}`).exec(readFileSync(file, "utf8"));
  assert.ok(body, `${file} declares class ${name}`);
  const m = new RegExp(String.raw`^  ${field}: \w+ = ([^;]+);`, "m").exec(body[1]);
  assert.ok(m, `${name}.${field} has an initializer`);
  return resolve(m[1].trim(), sources);
}

const sameValue = (doc: string, code: string, type: string) =>
  type === "number" || type === "integer" ? Number(doc) === Number(code) : doc.replace(/^"(.*)"$/, "$1") === code;

test("docs/config.md's defaults are the parser's starting values", () => {
  const targets = setterTargets();
  const sources = assemblySources();
  const scorerKeys = new Set(sources.flatMap((s) => [...s.matchAll(/new ScorerParam\("([\w.]+)"/g)].map((m) => m[1])));
  assert.ok(scorerKeys.size >= 4, "the scorers' own keys are read");
  let compared = 0;
  for (const r of rows) {
    if (r.key === "endpoints" || r.key.startsWith("weights.") || scorerKeys.has(r.key)) continue;
    const target = targets.get(r.key);
    assert.ok(target, `${r.key}: no setter of the form this test reads in ${SETTER_FILES.join(", ")}`);
    const code = initializer(target[0], target[1], sources);
    assert.ok(sameValue(r.default, code, r.type), `${r.key}: docs/config.md says ${r.default}, the parser starts from ${code}`);
    compared++;
  }
  assert.ok(compared >= 40, `${compared} defaults compared`);
});
