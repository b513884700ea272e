// The plugin configuration embedded in each example is accepted by the plugin's own configure, run
// through the host as the gateway runs it: the Higress module for the WasmPlugin (defaultConfig, each
// matchRules config, and the merged JSON Higress actually delivers), the stock module for envoy.yaml's
// StringValue. Needs `npm run build` outputs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { LogLevel } from "../../src-host/host/abi.ts";
import { VirtualClock } from "../../src-host/host/clock.ts";
import { ClusterRegistry, StaticCluster } from "../../src-host/host/cluster.ts";
import { ConfigRejectedError, PluginHost } from "../../src-host/host/plugin-host.ts";
import type { Flavor } from "../../src-host/host/vm.ts";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";
import { tcpRedis, type RedisTarget } from "../../src-host/host/redis-client.ts";
import { vllmPage } from "../../src-host/harness/vllm-page.ts";
import { SimRedis } from "../../src-host/sim/sim-redis.ts";
import { chat, pickerHost, text } from "../support/picker.ts";

type Obj = Record<string, any>;

function loadDocs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, "utf8"), { merge: true } as never)
    .map((d: any) => d.toJS({ maxAliasCount: -1 }))
    .filter((d: Obj | null) => d != null);
}

interface Outcome {
  accepted: boolean;
  logs: string[];
  warnings: string[];
}

/** The gateway knows the example's Redis Service as a cluster (the plugin connects lazily; nothing listens). */
function exampleRedisClusters(): Map<string, RedisTarget> {
  const names = loadDocs("examples/higress/wasmplugin.yaml")
    .filter((d) => d.kind === "Service")
    .flatMap((svc) => svc.spec.ports.map((p: Obj) => `outbound|${p.port}||${svc.metadata.name}.${svc.metadata.namespace}.svc.cluster.local`));
  return new Map(names.map((n: string) => [n, tcpRedis(1)]));
}

function configure(flavor: Flavor, config: unknown, clusters = new ClusterRegistry()): Outcome {
  const logs: string[] = [];
  const warnings: string[] = [];
  try {
    const host = PluginHost.create({
      wasm: readBuiltPlugin(flavor),
      flavor,
      pluginConfig: JSON.stringify(config),
      rootId: "endpoint_picker",
      vmId: "endpoint_picker",
      clock: new VirtualClock(),
      clusters,
      redis: exampleRedisClusters(),
      log: (level, message) => {
        logs.push(message);
        if (level >= LogLevel.Warn) warnings.push(message);
      },
    });
    host.close();
    return { accepted: true, logs, warnings };
  } catch (e) {
    if (e instanceof ConfigRejectedError) return { accepted: false, logs, warnings };
    throw e;
  }
}

function assertAccepted(flavor: Flavor, config: unknown, what: string, clusters?: ClusterRegistry): void {
  const r = configure(flavor, config, clusters);
  assert.ok(r.accepted, `${what} rejected by the ${flavor} module:\n${r.logs.join("\n")}`);
  assert.deepEqual(r.warnings, [], `${what} draws warnings from the ${flavor} module`);
}

const [wasmPlugin] = loadDocs("examples/higress/wasmplugin.yaml").filter((d) => d.kind === "WasmPlugin");
const envoy = loadDocs("examples/envoy/envoy.yaml")[0];

// What Higress's controller sends the filter (pkg/ingress/config/ingress_config.go, convertIstioWasmPlugin):
// the defaultConfig fields, plus "_rules_" holding each rule's config with _match_route_/_match_service_/_match_domain_.
function higressDeliveredConfig(spec: Obj): Obj {
  const delivered: Obj = spec.defaultConfigDisable ? {} : { ...spec.defaultConfig };
  const rules = (spec.matchRules ?? []).map((r: Obj) => {
    const rule: Obj = { ...r.config };
    if (r.ingress?.length) rule._match_route_ = r.ingress;
    if (r.service?.length) rule._match_service_ = r.service;
    if (r.domain?.length) rule._match_domain_ = r.domain;
    return rule;
  });
  if (rules.length) delivered._rules_ = rules;
  return delivered;
}

function envoyPluginConfig(): { config: Obj; clusters: ClusterRegistry } {
  const hcm = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
  const wasm = hcm.http_filters.find((f: Obj) => f.name === "envoy.filters.http.wasm").typed_config.config;
  const clusters = new ClusterRegistry();
  for (const c of envoy.static_resources.clusters) {
    const hosts = c.load_assignment.endpoints.flatMap((e: Obj) =>
      e.lb_endpoints.map((l: Obj) => ({
        address: `${l.endpoint.address.socket_address.address}:${l.endpoint.address.socket_address.port_value}`,
        healthStatus: "Healthy",
        metrics: "",
      })),
    );
    clusters.add(new StaticCluster(c.name, hosts));
  }
  return { config: JSON.parse(wasm.configuration.value), clusters };
}

test("Higress: the WasmPlugin's defaultConfig is accepted", () => {
  assertAccepted("higress", wasmPlugin.spec.defaultConfig, "defaultConfig");
});

test("Higress: each matchRules config is accepted on its own", () => {
  wasmPlugin.spec.matchRules.forEach((rule: Obj, i: number) => assertAccepted("higress", rule.config, `matchRules[${i}].config`));
});

// Higress sends "_rules_" whenever matchRules exist; a parser that refused it would refuse every WasmPlugin
// with matchRules.
test("Higress: the merged configuration with _rules_ that the gateway delivers is accepted", () => {
  const delivered = higressDeliveredConfig(wasmPlugin.spec);
  assert.ok(Array.isArray(delivered._rules_) && delivered._rules_.length === wasmPlugin.spec.matchRules.length);
  assertAccepted("higress", delivered, "the delivered configuration");
});

test("Envoy: the StringValue configuration is accepted with envoy.yaml's clusters", () => {
  const { config, clusters } = envoyPluginConfig();
  assert.ok(Array.isArray(config.endpoints) && config.endpoints.length > 0);
  assertAccepted("envoy", config, "envoy.yaml configuration", clusters);
});

test("Envoy: envoy-discovery.yaml's configuration is accepted", () => {
  const discovery = loadDocs("examples/envoy/envoy-discovery.yaml")[0];
  const hcm = discovery.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
  const wasm = hcm.http_filters.find((f: Obj) => f.name === "envoy.filters.http.wasm").typed_config.config;
  const config = JSON.parse(wasm.configuration.value);
  assert.equal(config.endpoints, undefined);
  assertAccepted("envoy", config, "envoy-discovery.yaml configuration");
});

const invalidConfigs: Array<[string, unknown]> = [
  ["a negative weight", { weights: { queue: -1 } }],
  ["an unknown key", { noSuchKey: true }],
  ["a string where a number belongs", { prefix: { chunkChars: "256" } }],
  ["all weights zero", { weights: { queue: 0, kvCache: 0, prefixCache: 0, inflight: 0, loraAffinity: 0 } }],
];

for (const flavor of ["higress", "envoy"] as const) {
  test(`${flavor}: obviously invalid configurations are rejected`, () => {
    for (const [what, cfg] of invalidConfigs) {
      assert.equal(configure(flavor, cfg).accepted, false, `${what} accepted: ${JSON.stringify(cfg)}`);
    }
  });
}

test("the build outputs carry the host functions of their gateway", () => {
  const imports = (flavor: Flavor) =>
    new Set(WebAssembly.Module.imports(new WebAssembly.Module(readBuiltPlugin(flavor) as Uint8Array<ArrayBuffer>)).map((i) => i.name));
  const higressOnly = ["proxy_get_upstream_hosts", "proxy_set_upstream_override_host"];
  for (const name of higressOnly) {
    assert.ok(imports("higress").has(name), `higress.wasm imports ${name}`);
    assert.ok(!imports("envoy").has(name), `envoy.wasm does not import ${name} (stock Envoy lacks it)`);
  }
});

// A rule's configuration replaces the default one (docs/config.md, "Per-route, per-domain and per-service
// configuration"), so a `redis` key only in defaultConfig shares nothing for requests a rule matches. Part 4 of
// the example (the Redis Deployment, onlyPushRouteCluster=false) exists so that its LLM traffic shares hints:
// requests to its Service must reach Redis whichever rule they match — the per-route rule (through the example's
// Ingress) or the per-service rule (another route to the same Service).
test("Higress: requests to the example's Service share hints through the example's Redis, whichever rule matches", () => {
  const docs = loadDocs("examples/higress/wasmplugin.yaml");
  const svc = docs.find((d) => d.kind === "Service" && d.spec.clusterIP === "None")!;
  const ing = docs.find((d) => d.kind === "Ingress")!;
  const redisCluster: string = wasmPlugin.spec.defaultConfig.redis.cluster;
  const vllmCluster = `outbound|${svc.spec.ports[0].port}||${svc.metadata.name}.${svc.metadata.namespace}.svc.cluster.local`;
  const pods = ["10.1.0.1:8000", "10.1.0.2:8000", "10.1.0.3:8000"];
  for (const routeName of [`${ing.metadata.namespace}/${ing.metadata.name}`, "llm/another-route-to-vllm"]) {
    const clock = new VirtualClock();
    const clusters = new ClusterRegistry();
    clusters.add(new StaticCluster(vllmCluster, pods.map((address) => ({ address, healthStatus: "Healthy", metrics: vllmPage({ waiting: 0, running: 1, kv: 0.2 }) }))));
    const h = pickerHost({ config: higressDeliveredConfig(wasmPlugin.spec), clusters, clock, redis: new Map([[redisCluster, new SimRedis(clock, 0.2)]]) });
    assert.deepEqual(h.logs.filter((l) => /invalid plugin config/.test(l)), []);
    for (let i = 0; i < 3; i++) {
      const body = new TextEncoder().encode(JSON.stringify(chat(text(1, 2000), [], "question " + i)));
      const s = h.host.newStream({ clusterName: vllmCluster, routeName });
      s.decodeHeaders([[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "llm.example.com"], [":scheme", "http"],
        ["content-type", "application/json"], ["content-length", String(body.length)]], false);
      s.decodeData(body, true);
      clock.advanceTo(clock.nowMs() + 5);
      h.complete(s);
    }
    assert.equal(h.host.traps, 0);
    const lookups = h.counter("redis.lookups");
    const publishes = h.counter("redis.publishes");
    assert.ok(lookups + publishes > 0,
      `route ${routeName}: the requests never reached Redis (lookups ${lookups}, publishes ${publishes}); the matchRules config that matches them lacks a redis key`);
  }
});
