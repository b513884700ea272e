// docs/config.md's reference table against the plugin's own parser: the table has a row for every key the parser
// accepts and no other; each documented default is accepted as a value; and the parser's message for a wrong value
// states the documented type and range. Needs `npm run build` outputs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { LogLevel } from "../../src-host/host/abi.ts";
import { VirtualClock } from "../../src-host/host/clock.ts";
import { ClusterRegistry } from "../../src-host/host/cluster.ts";
import { ConfigRejectedError, PluginHost } from "../../src-host/host/plugin-host.ts";
import { tcpRedis } from "../../src-host/host/redis-client.ts";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";

interface Row { key: string; type: string; default: string; range: string; meaning: string }

const rows: Row[] = readFileSync("docs/config.md", "utf8")
  .split("\n")
  .filter((l) => /^\| `[^`]+` \|/.test(l))
  .map((l) => l.split(" | ").map((c) => c.trim()))
  .map((c) => ({ key: c[0].replace(/^\| /, "").replace(/`/g, ""), type: c[1], default: c[2].replace(/`/g, ""), range: c[3], meaning: c[4] ?? "" }));

/** Every key the parser's schema declares, read from its sources: config-schema.ts, redis-section.ts and
 *  discovery-section.ts (the
 *  *Field("key", ...) specs, lb_policy aside: docs/config.md's migration section covers it), the scorers'
 *  weights.<name> and ScorerParam keys, and the endpoints array. */
function parserKeys(): string[] {
  const keys = ["endpoints"];
  for (const file of ["assembly/config/config-schema.ts", "assembly/config/redis-section.ts", "assembly/config/discovery-section.ts"]) {
    for (const m of readFileSync(file, "utf8").matchAll(/\b[a-zA-Z]+Field\(\s*"([\w.]+)",/g)) if (m[1] !== "lb_policy") keys.push(m[1]);
  }
  const dir = "assembly/scheduling/scorers";
  for (const f of readdirSync(dir)) {
    const source = readFileSync(`${dir}/${f}`, "utf8");
    for (const m of source.matchAll(/super\(capacity, "(\w+)"/g)) keys.push(`weights.${m[1]}`);
    for (const m of source.matchAll(/new ScorerParam\("([\w.]+)"/g)) keys.push(m[1]);
  }
  return keys;
}

const REDIS_CLUSTER = "outbound|6379||redis.test";

function nested(key: string, value: unknown): Record<string, unknown> {
  const parts = key.split(".");
  let o: Record<string, unknown> = { [parts.pop()!]: value };
  while (parts.length) o = { [parts.pop()!]: o };
  return o;
}

/** The configuration that sets key alone (a redis key also needs redis.cluster). */
function configWith(key: string, value: unknown): Record<string, unknown> {
  const c = nested(key, value);
  if (key.startsWith("redis.") && key !== "redis.cluster") (c.redis as Record<string, unknown>).cluster = REDIS_CLUSTER;
  return c;
}

function configure(config: unknown): { accepted: boolean; logs: string[]; warnings: string[] } {
  const logs: string[] = [];
  const warnings: string[] = [];
  try {
    PluginHost.create({
      wasm: readBuiltPlugin("higress"),
      flavor: "higress",
      pluginConfig: JSON.stringify(config),
      rootId: "endpoint_picker",
      vmId: "endpoint_picker",
      clock: new VirtualClock(),
      clusters: new ClusterRegistry(),
      redis: new Map([[REDIS_CLUSTER, tcpRedis(1)]]),
      log: (level, message) => {
        logs.push(message);
        if (level >= LogLevel.Warn) warnings.push(message);
      },
    }).close();
    return { accepted: true, logs, warnings };
  } catch (e) {
    if (e instanceof ConfigRejectedError) return { accepted: false, logs, warnings };
    throw e;
  }
}

/** A number as the table writes it (1e6, 2^53, 0.5) and as the parser prints it (integral without a fraction). */
const docNumber = (s: string) => (s.includes("^") ? 2 ** Number(s.split("^")[1]) : Number(s));
const shown = (s: string) => String(docNumber(s));

/** What the parser's message should say the key expects, from the row's type and range; null when the table
 *  describes the format in words (strings). */
function expectation(r: Row): string | null {
  if (r.type === "boolean") return "true or false";
  if (r.type === "string") {
    const options = [...r.range.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    return options.length > 1 ? `one of "${options.join('", "')}"` : null;
  }
  const what = r.type === "integer" ? "an integer" : "a number";
  let m = /^(0 or )?([\d.e^]+)\.\.([\d.e^]+)$/.exec(r.range);
  if (m) return `${m[1] ?? ""}${what} in [${shown(m[2])}, ${shown(m[3])}]`;
  m = /^\(([\d.]+), ([\d.]+)\]$/.exec(r.range);
  if (m) return `${what} in (${shown(m[1])}, ${shown(m[2])}]`;
  return null;
}

const scalarRows = rows.filter((r) => r.key !== "endpoints");

test("docs/config.md has a row for every key the parser declares, and no other", () => {
  assert.ok(rows.length >= 40, `read ${rows.length} rows`);
  assert.deepEqual(rows.map((r) => r.key).sort(), [...new Set(parserKeys())].sort());
});

test("the parser takes each documented default as a value", () => {
  for (const r of scalarRows) {
    // Off by leaving the key out: an empty cluster is refused.
    if (["redis.cluster", "discovery.cluster", "discovery.servingCluster", "discovery.metricsCluster"].includes(r.key)) continue;
    const d = r.default;
    const value = r.type === "boolean" ? d === "true" : r.type === "string" ? d.replace(/^"(.*)"$/, "$1") : Number(d);
    const out = configure(configWith(r.key, value));
    assert.ok(out.accepted, `${r.key}: ${JSON.stringify(value)} rejected:\n${out.logs.join("\n")}`);
    // The Higress build (configured here) names the stock build's own keys as ignored (once per VM configured).
    // So is the stock build's discovery section as a whole.
    const expected = r.meaning.startsWith("stock build:") ? [`endpoint-picker: ${r.key}: ignored by the Higress build, whose metrics come from the gateway's health check`]
      : r.key.startsWith("discovery.") ? ["endpoint-picker: discovery: ignored by the Higress build, which takes the hosts from the gateway"] : [];
    assert.deepEqual([...new Set(out.warnings)], expected, `${r.key}: ${JSON.stringify(value)}`);
  }
});

test("the parser's message for a wrong value states the documented type and range", () => {
  let checked = 0;
  for (const r of scalarRows) {
    const wrong = r.type === "string" ? 12 : "x";
    const out = configure(configWith(r.key, wrong));
    assert.ok(!out.accepted, `${r.key}: ${JSON.stringify(wrong)} accepted`);
    const text = out.logs.join("\n");
    const exp = expectation(r);
    assert.ok(exp !== null || r.type === "string", `${r.key}: range "${r.range}" is not in a form this test reads`);
    if (exp === null) {
      assert.ok(text.includes(`${r.key}: expected `), `${r.key} named in:\n${text}`);
    } else {
      assert.ok(text.includes(`${r.key}: expected ${exp}, got`), `${r.key}: the parser does not say "expected ${exp}":\n${text}`);
      checked++;
    }
  }
  assert.ok(checked >= 35, `${checked} ranges compared`);
});

test("configure-time warnings name the first 20 and count the rest, as errors do", () => {
  const rules = Array.from({ length: 30 }, (_, i) => ({ _match_route_: [`r${i}`], session: { header: "x-session" }, prefix: { capacityPerEndpoint: 16 } }));
  const out = configure({ _rules_: rules });
  assert.ok(out.accepted, out.logs.join("\n"));
  const warnings = [...new Set(out.warnings)];
  assert.equal(warnings.length, 21, warnings.join("\n"));
  assert.ok(warnings[0].startsWith("endpoint-picker: _rules_[0].session.header: unused while weights.session is 0"), warnings[0]);
  assert.equal(warnings[20], "endpoint-picker: and 10 more warnings");
});
