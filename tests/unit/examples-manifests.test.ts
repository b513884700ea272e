// The deployment examples agree with each other, with the build and with docs/config.md: every YAML
// file parses, names (root_id, vm_id, module file, clusters, addresses, services) line up, the Higress
// resources use only fields Higress's CRD defines, and the console spec describes exactly the documented keys.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { parseAllDocuments } from "yaml";
import { OVERRIDE_HEADER } from "../../src-host/host/override-host.ts";
import { dockerignoreKeeps, imagePathOf, parseDockerfile } from "../support/docker-build-context.ts";
import { envoyConfigErrors } from "../support/envoy-api-check.ts";
import { importClosure } from "../support/import-closure.ts";

type Obj = Record<string, any>;

function yamlFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...yamlFilesUnder(p));
    else if (/\.ya?ml$/.test(e)) out.push(p);
  }
  return out;
}

function loadDocs(file: string): Obj[] {
  const docs = parseAllDocuments(readFileSync(file, "utf8"), { merge: true });
  if (!Array.isArray(docs)) throw new Error(`${file}: not a YAML stream`);
  for (const d of docs) {
    if (d.errors.length) throw new Error(`${file}: ${d.errors.map((e) => e.message).join("; ")}`);
  }
  return docs.map((d) => d.toJS({ maxAliasCount: -1 })).filter((d) => d != null);
}

const higress = loadDocs("examples/higress/wasmplugin.yaml");
const byKind = (kind: string) => higress.filter((d) => d.kind === kind);
const envoy = loadDocs("examples/envoy/envoy.yaml")[0];
const compose = loadDocs("examples/envoy/docker-compose.yaml")[0];
const envoyDiscovery = loadDocs("examples/envoy/envoy-discovery.yaml")[0];
const pkg = JSON.parse(readFileSync("package.json", "utf8"));

// docs/config.md's reference table: | `key` | type | default | range | meaning |
interface DocRow { key: string; type: string; default: string; range: string }
const docRows: DocRow[] = readFileSync("docs/config.md", "utf8")
  .split("\n")
  .filter((line) => line.startsWith("| `"))
  .map((line) => line.split("|").map((cell) => cell.trim()))
  .map((cells) => ({ key: cells[1].replace(/`/g, ""), type: cells[2], default: cells[3], range: cells[4] }));
const docDefault = (key: string) => docRows.find((r) => r.key === key)!.default.replace(/`/g, "");

function envoyWasmFilter(): Obj {
  const hcm = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
  return hcm.http_filters.find((f: Obj) => f.name === "envoy.filters.http.wasm");
}
function envoyCluster(name: string): Obj | undefined {
  return envoy.static_resources.clusters.find((c: Obj) => c.name === name);
}
function clusterAddresses(c: Obj): string[] {
  return c.load_assignment.endpoints.flatMap((e: Obj) =>
    e.lb_endpoints.map((l: Obj) => `${l.endpoint.address.socket_address.address}:${l.endpoint.address.socket_address.port_value}`),
  );
}

test("every YAML file under examples/ parses without errors", () => {
  const files = yamlFilesUnder("examples");
  assert.ok(files.length >= 4, `found ${files.join(", ")}`);
  for (const f of files) assert.ok(loadDocs(f).length >= 1, `${f} has a document`);
});

test("docs/config.md's table was found (the other checks read it)", () => {
  assert.ok(docRows.length >= 30, `parsed ${docRows.length} rows`);
  assert.equal(docDefault("limits.maxRequestBodyBytes"), "4194304");
});

// Fields of higress.extensions.v1alpha1.WasmPlugin and MatchRule (alibaba/higress api/extensions/v1alpha1/wasmplugin.proto).
const WASMPLUGIN_FIELDS = ["url", "sha256", "imagePullPolicy", "imagePullSecret", "verificationKey", "pluginConfig", "pluginName",
  "phase", "priority", "failStrategy", "vmConfig", "defaultConfig", "matchRules", "defaultConfigDisable"];
const MATCHRULE_FIELDS = ["ingress", "domain", "config", "configDisable", "service", "routeType"];

test("Higress WasmPlugin: CRD fields only, our image and root id, fail-open, rules by route and by service", () => {
  const [plugin] = byKind("WasmPlugin");
  assert.equal(plugin.apiVersion, "extensions.higress.io/v1alpha1");
  for (const k of Object.keys(plugin.spec)) assert.ok(WASMPLUGIN_FIELDS.includes(k), `unknown WasmPlugin field ${k}`);
  const spec = plugin.spec;
  const url = /^oci:\/\/[^/]+(\/[^:]+)*\/endpoint-picker:(.+)$/.exec(spec.url);
  assert.ok(url, `url ${spec.url} names the endpoint-picker image`);
  assert.equal(url[2], pkg.version, "tag is the version the packager uses by default");
  assert.equal(spec.pluginName, "endpoint_picker");
  assert.ok(["UNSPECIFIED_PHASE", "AUTHN", "AUTHZ", "STATS"].includes(spec.phase));
  assert.ok(Number.isInteger(spec.priority));
  assert.equal(spec.failStrategy, "FAIL_OPEN");
  assert.ok(["IfNotPresent", "Always", "UNSPECIFIED_POLICY", undefined].includes(spec.imagePullPolicy));
  assert.equal(typeof spec.defaultConfig, "object");
  for (const rule of spec.matchRules) {
    for (const k of Object.keys(rule)) assert.ok(MATCHRULE_FIELDS.includes(k), `unknown MatchRule field ${k}`);
    assert.equal(typeof rule.config, "object");
  }
  assert.ok(spec.matchRules.some((r: Obj) => r.ingress?.length), "a per-route rule");
  assert.ok(spec.matchRules.some((r: Obj) => r.service?.length), "a per-service rule");
});

test("Higress: rules name the example's Ingress and Service, and the Ingress routes to the headless Service", () => {
  const [svc] = byKind("Service");
  const [ing] = byKind("Ingress");
  const [plugin] = byKind("WasmPlugin");
  assert.equal(svc.spec.clusterIP, "None", "headless");
  const fqdn = `${svc.metadata.name}.${svc.metadata.namespace}.svc.cluster.local`;
  const backend = ing.spec.rules[0].http.paths[0].backend.service;
  assert.equal(ing.metadata.namespace, svc.metadata.namespace);
  assert.equal(backend.name, svc.metadata.name);
  assert.ok(svc.spec.ports.some((p: Obj) => p.port === backend.port.number));
  const ingressRefs = plugin.spec.matchRules.flatMap((r: Obj) => r.ingress ?? []);
  const serviceRefs = plugin.spec.matchRules.flatMap((r: Obj) => r.service ?? []);
  assert.deepEqual(ingressRefs, [`${ing.metadata.namespace}/${ing.metadata.name}`]);
  assert.deepEqual(serviceRefs, [fqdn]);
});

test("Higress: the plugin's redis.cluster is the cluster of the example's Redis Service", () => {
  const [plugin] = byKind("WasmPlugin");
  const m = /^outbound\|(\d+)\|\|([^.]+)\.([^.]+)\.svc\.cluster\.local$/.exec(plugin.spec.defaultConfig.redis.cluster);
  assert.ok(m, "outbound|<port>||<service FQDN>");
  const svc = byKind("Service").find((s: Obj) => s.metadata.name === m[2] && s.metadata.namespace === m[3]);
  assert.ok(svc, "the Service exists");
  assert.ok(svc.spec.ports.some((p: Obj) => p.port === Number(m[1])), "on that port");
  const deployment = byKind("Deployment").find((d: Obj) => d.spec.template.metadata.labels.app === svc.spec.selector.app);
  assert.ok(deployment, "a Deployment backs it");
  const args: string[] = deployment.spec.template.spec.containers[0].args;
  assert.ok(args.includes("volatile-ttl") || args.includes("volatile-lru"), "when full, Redis evicts keys that have a TTL (all of ours)");
  // No route points to the Redis Service, and with Higress's default global.onlyPushRouteCluster=true
  // (helm/core/values.yaml; PILOT_FILTER_GATEWAY_CLUSTER_CONFIG) the gateway gets clusters only for routed
  // Services, so the example must ask for the setting.
  const routed = byKind("Ingress").flatMap((i: Obj) => i.spec.rules.flatMap((r: Obj) => r.http.paths.map((p: Obj) => `${p.backend.service?.name}.${i.metadata.namespace}`)));
  assert.ok(!routed.includes(`${m[2]}.${m[3]}`), "the Redis is not a route's backend");
  assert.match(readFileSync("examples/higress/wasmplugin.yaml", "utf8"), /global\.onlyPushRouteCluster=false/);
});

test("Higress: the Service's cluster gets a /metrics health check with store_metrics", () => {
  const [svc] = byKind("Service");
  const [filter] = byKind("EnvoyFilter");
  const [plugin] = byKind("WasmPlugin");
  assert.equal(filter.apiVersion, "networking.istio.io/v1alpha3");
  const patch = filter.spec.configPatches.find((p: Obj) => p.applyTo === "CLUSTER");
  assert.ok(patch, "a CLUSTER patch");
  assert.equal(patch.match.context, "GATEWAY");
  // Istio's EnvoyFilter CRD as Higress ships it (helm/core/crds/istio-envoyfilter.yaml).
  for (const k of Object.keys(patch)) assert.ok(["applyTo", "match", "patch"].includes(k), `unknown configPatches field ${k}`);
  for (const k of Object.keys(patch.match)) assert.ok(["context", "proxy", "listener", "routeConfiguration", "cluster"].includes(k), `unknown match field ${k}`);
  for (const k of Object.keys(patch.match.cluster)) assert.ok(["name", "portNumber", "service", "subset"].includes(k), `unknown ClusterMatch field ${k}`);
  for (const k of Object.keys(patch.patch)) assert.ok(["operation", "value", "filterClass"].includes(k), `unknown Patch field ${k}`);
  assert.equal(patch.match.cluster.service, `${svc.metadata.name}.${svc.metadata.namespace}.svc.cluster.local`);
  assert.ok(svc.spec.ports.some((p: Obj) => p.port === patch.match.cluster.portNumber));
  assert.equal(patch.patch.operation, "MERGE");
  const [hc] = patch.patch.value.health_checks;
  assert.equal(hc.store_metrics, true);
  const metricsPath = plugin.spec.defaultConfig.metrics?.path ?? docDefault("metrics.path");
  assert.equal(hc.http_health_check.path, metricsPath);
  const seconds = (d: string) => Number(/^(\d+(?:\.\d+)?)s$/.exec(d)![1]);
  assert.ok(seconds(hc.timeout) < seconds(hc.interval), "a probe ends before the next starts");
  assert.ok(seconds(hc.no_traffic_interval) <= seconds(hc.interval), "idle clusters are probed as often");
});

// Envoy refuses a bootstrap with an unknown field, a typed_config of an unknown @type, a bad enum or duration, or
// a missing required field; the table (tests/support/envoy-api-messages.ts) holds each message's fields from the proto.
test("Envoy: every field of envoy.yaml exists in its v3 API message, with a valid value", () => {
  assert.deepEqual(envoyConfigErrors(envoy, "envoy.config.bootstrap.v3.Bootstrap"), []);
});

test("Envoy with discovery: every field of envoy-discovery.yaml exists in its v3 API message; the plugin names its clusters", () => {
  assert.deepEqual(envoyConfigErrors(envoyDiscovery, "envoy.config.bootstrap.v3.Bootstrap"), []);
  const hcm = envoyDiscovery.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
  const wasm = hcm.http_filters.find((f: Obj) => f.name === "envoy.filters.http.wasm").typed_config.config;
  const d = JSON.parse(wasm.configuration.value).discovery;
  const cluster = (name: string) => envoyDiscovery.static_resources.clusters.find((c: Obj) => c.name === name);
  const admin = cluster(d.cluster);
  assert.deepEqual(clusterAddresses(admin), [`${envoyDiscovery.admin.address.socket_address.address}:${envoyDiscovery.admin.address.socket_address.port_value}`]);
  assert.equal(envoyDiscovery.admin.address.socket_address.address, "127.0.0.1", "the admin listener stays local");
  // original_dst_cluster.cc OriginalDstClusterFactory::createClusterImpl: CLUSTER_PROVIDED, no load_assignment.
  const metrics = cluster(d.metricsCluster);
  assert.equal(metrics.type, "ORIGINAL_DST");
  assert.equal(metrics.lb_policy, "CLUSTER_PROVIDED");
  assert.equal(metrics.load_assignment, undefined);
  assert.equal(metrics.original_dst_lb_config.use_http_header, true);
  const serving = cluster(d.servingCluster);
  assert.equal(serving, hcm.route_config.virtual_hosts[0].routes[0].route.cluster === d.servingCluster ? serving : undefined, "the route's cluster");
  assert.equal(
    serving.load_balancing_policy.policies[0].typed_extension_config.typed_config.override_host_sources[0].header,
    OVERRIDE_HEADER,
  );
});

test("Envoy: the schema check catches a misspelt field, a wrong @type, a bad enum, a bad duration, a missing and a deprecated field", () => {
  const broken = (edit: (b: Obj) => void) => {
    const b = structuredClone(envoy);
    edit(b);
    return envoyConfigErrors(b, "envoy.config.bootstrap.v3.Bootstrap");
  };
  const wasmConfig = (b: Obj) => b.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.http_filters.find((f: Obj) => f.name === "envoy.filters.http.wasm").typed_config;
  const cases: Array<[string, (b: Obj) => void, RegExp]> = [
    ["misspelt field", (b) => { wasmConfig(b).config.allow_on_header_stop_iteration = true; }, /has no field allow_on_header_stop_iteration/],
    ["wrong @type", (b) => { wasmConfig(b)["@type"] = "type.googleapis.com/envoy.extensions.wasm.v3.Wasm"; }, /envoy\.extensions\.wasm\.v3\.Wasm is not in the table/],
    ["bad enum", (b) => { wasmConfig(b).config.failure_policy = "FAIL_CLOSE"; }, /"FAIL_CLOSE" is not one of/],
    ["bad duration", (b) => { b.static_resources.clusters[0].connect_timeout = "2000ms"; }, /not a duration/],
    ["missing required", (b) => { delete b.static_resources.clusters[0].health_checks[0].timeout; }, /requires timeout/],
    ["deprecated field", (b) => { b.static_resources.clusters[0].dns_refresh_rate = "5s"; }, /Cluster\.dns_refresh_rate is deprecated/],
    ["deprecated fail_open", (b) => { wasmConfig(b).config.fail_open = true; }, /PluginConfig\.fail_open is deprecated/],
  ];
  for (const [what, edit, expected] of cases) {
    const errors = broken(edit);
    assert.ok(errors.some((e) => expected.test(e)), `${what}: ${errors.join("; ")}`);
  }
});

// Higress's Envoy adds store_metrics (field 127) to HealthCheck (higress-group/go-control-plane
// envoy/config/core/v3/health_check.pb.go); the rest of the patch is stock Cluster fields.
test("Higress: the EnvoyFilter's cluster patch sets only Cluster and HealthCheck fields, with valid values", () => {
  const [filter] = byKind("EnvoyFilter");
  for (const p of filter.spec.configPatches.filter((p: Obj) => p.applyTo === "CLUSTER")) {
    assert.deepEqual(envoyConfigErrors(p.patch.value, "envoy.config.cluster.v3.Cluster", {
      partial: true,
      extraFields: { "envoy.config.core.v3.HealthCheck": { store_metrics: "bool" } },
    }), []);
  }
});

test("Envoy: the wasm filter names our root_id, vm_id and module, fails open and runs before the router", () => {
  const hcm = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
  const names = hcm.http_filters.map((f: Obj) => f.name);
  assert.deepEqual(names.slice(-2), ["envoy.filters.http.wasm", "envoy.filters.http.router"]);
  const wasm = envoyWasmFilter().typed_config;
  assert.equal(wasm["@type"], "type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm");
  const c = wasm.config;
  assert.equal(c.root_id, "endpoint_picker");
  assert.equal(c.vm_config.vm_id, "endpoint_picker");
  assert.equal(c.vm_config.runtime, "envoy.wasm.runtime.v8");
  assert.equal(c.failure_policy, "FAIL_OPEN");
  assert.equal(c.allow_on_headers_stop_iteration, true);
  assert.equal(c.configuration["@type"], "type.googleapis.com/google.protobuf.StringValue");
  assert.equal(typeof c.configuration.value, "string");
  // docker-compose mounts the stock build output where the filter loads it from.
  const mounts: string[] = compose.services.envoy.volumes;
  const target = c.vm_config.code.local.filename;
  const mount = mounts.find((m) => m.split(":")[1] === target);
  assert.ok(mount, `a volume mounts ${target}`);
  assert.equal(mount.split(":")[0], "../../build/envoy.wasm");
  assert.ok(statSync("build/envoy.wasm").isFile(), "build/envoy.wasm exists (run `npm run build`)");
  assert.ok(mounts.some((m) => m.split(":")[1] === "/etc/envoy/envoy.yaml"));
});

test("Envoy: the listener buffers more than the plugin's largest body", () => {
  const listener = envoy.static_resources.listeners[0];
  assert.deepEqual(listener.address.socket_address, { address: "0.0.0.0", port_value: 10000 });
  const cfg = JSON.parse(envoyWasmFilter().typed_config.config.configuration.value);
  const maxBody = cfg.limits?.maxRequestBodyBytes ?? Number(docDefault("limits.maxRequestBodyBytes"));
  assert.ok(listener.per_connection_buffer_limit_bytes >= maxBody + 64 * 1024, `${listener.per_connection_buffer_limit_bytes} vs ${maxBody}`);
});

test("Envoy: the cluster's override_host policy reads the plugin's header and falls back to round robin", () => {
  const vllm = envoyCluster(envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[0].route.cluster)!;
  assert.ok(vllm, "the route's cluster exists");
  const [policy] = vllm.load_balancing_policy.policies;
  assert.equal(policy.typed_extension_config.name, "envoy.load_balancing_policies.override_host");
  const oh = policy.typed_extension_config.typed_config;
  assert.equal(oh["@type"], "type.googleapis.com/envoy.extensions.load_balancing_policies.override_host.v3.OverrideHost");
  assert.deepEqual(oh.override_host_sources, [{ header: OVERRIDE_HEADER }]);
  const [fallback] = oh.fallback_policy.policies;
  assert.equal(fallback.typed_extension_config.name, "envoy.load_balancing_policies.round_robin");
  assert.equal(fallback.typed_extension_config.typed_config["@type"], "type.googleapis.com/envoy.extensions.load_balancing_policies.round_robin.v3.RoundRobin");
});

test("Envoy: every backend is a configured endpoint whose metrics cluster reaches exactly that backend", () => {
  const cfg = JSON.parse(envoyWasmFilter().typed_config.config.configuration.value);
  const backends = clusterAddresses(envoyCluster("vllm")!);
  assert.deepEqual(cfg.endpoints.map((e: Obj) => e.address).sort(), [...backends].sort());
  const metricsClusters = new Set<string>();
  for (const e of cfg.endpoints) {
    const mc = envoyCluster(e.metricsCluster);
    assert.ok(mc, `cluster ${e.metricsCluster} exists`);
    assert.deepEqual(clusterAddresses(mc), [e.address]);
    metricsClusters.add(e.metricsCluster);
  }
  assert.equal(metricsClusters.size, cfg.endpoints.length, "one metrics cluster per endpoint");
});

test("docker-compose: backends sit at the cluster's addresses, ports bind to loopback, Envoy is 1.35 or later", () => {
  const backends = clusterAddresses(envoyCluster("vllm")!);
  const services = Object.entries(compose.services as Record<string, Obj>);
  const served: string[] = [];
  for (const [name, s] of services) {
    for (const p of s.ports ?? []) assert.match(String(p), /^127\.0\.0\.1:/, `${name} publishes ${p} on loopback only`);
    const cmd: string[] | undefined = s.command;
    if (s.build && cmd?.includes("--port")) {
      const ip = s.networks.llm.ipv4_address;
      served.push(`${ip}:${cmd[cmd.indexOf("--port") + 1]}`);
      assert.equal(cmd[cmd.indexOf("--host") + 1], "0.0.0.0", `${name} listens on all interfaces`);
      assert.equal(s.build.dockerfile, "examples/backend/Dockerfile");
    }
  }
  assert.deepEqual(served.sort(), [...backends].sort());
  const subnet = compose.networks.llm.ipam.config[0].subnet as string;
  const prefix = subnet.replace(/\.0\/24$/, ".");
  for (const a of served) assert.ok(a.startsWith(prefix), `${a} in ${subnet}`);
  const tag = /^envoyproxy\/envoy:v(\d+)\.(\d+)/.exec(compose.services.envoy.image);
  assert.ok(tag, "a pinned envoyproxy/envoy image");
  assert.ok(Number(tag[1]) > 1 || Number(tag[2]) >= 35, `${compose.services.envoy.image} is >= 1.35`);
  assert.ok(compose.services.client, "a client service");
});

// The backend and client containers run TypeScript/JS from the image, so every file their entry scripts import
// must pass the .dockerignore and be copied to the same path relative to WORKDIR, and every package they import
// by name must be one `npm ci` installs.
test("docker-compose: the backend image holds every file its entrypoint and the client import", () => {
  const dockerfile = "examples/backend/Dockerfile";
  const df = parseDockerfile(dockerfile);
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  const built = Object.values(compose.services as Record<string, Obj>).filter((s) => s.build?.dockerfile === dockerfile);
  assert.ok(built.length >= 2, "backends and client use the image");
  for (const s of built) assert.equal(join(s.build.context), "../..", "context is the repository root");
  const entries = new Set<string>();
  for (const argv of [df.entrypoint, ...built.map((s) => s.entrypoint).filter(Boolean)]) {
    for (const a of argv) if (/\.(ts|mjs|js)$/.test(a)) entries.add(a);
  }
  assert.ok(entries.has("src-host/backend/cli.ts") && entries.has("examples/client/chat-client.mjs"), [...entries].join(", "));
  for (const entry of entries) {
    const { files, packages } = importClosure(entry);
    for (const f of files) {
      assert.ok(dockerignoreKeeps(`${dockerfile}.dockerignore`, f), `${entry} imports ${f}, which ${dockerfile}.dockerignore leaves out of the context`);
      assert.equal(imagePathOf(df, f), posix.join(df.workdir, f), `${entry} imports ${f}: no COPY puts it at ${df.workdir}/${f}`);
    }
    for (const name of packages) assert.ok(deps[name], `${entry} imports package ${name}, which package.json does not list`);
  }
  for (const f of ["package.json", "package-lock.json"]) assert.equal(imagePathOf(df, f), posix.join(df.workdir, f), `npm ci needs ${f}`);
});

// spec.yaml properties flattened to dotted keys; arrays (endpoints) are leaves.
function specKeys(props: Obj, prefix = ""): Map<string, Obj> {
  const out = new Map<string, Obj>();
  for (const [k, v] of Object.entries(props)) {
    if (v.type === "object" && v.properties) for (const [kk, vv] of specKeys(v.properties, `${prefix}${k}.`)) out.set(kk, vv);
    else out.set(prefix + k, v);
  }
  return out;
}

const spec = loadDocs("examples/higress/spec.yaml")[0];
const specProps = specKeys(spec.spec.configSchema.openAPIV3Schema.properties);

test("spec.yaml describes exactly the keys of docs/config.md", () => {
  const documented = docRows.map((r) => r.key).sort();
  assert.deepEqual([...specProps.keys()].sort(), documented);
  assert.deepEqual(specKeys(spec.spec.routeConfigSchema.openAPIV3Schema.properties).size, specProps.size);
});

test("spec.yaml types, defaults and ranges match docs/config.md", () => {
  const num = (s: string) => (s.includes("^") ? Math.pow(...(s.split("^").map(Number) as [number, number])) : Number(s));
  for (const row of docRows) {
    const p = specProps.get(row.key)!;
    assert.equal(p.type, row.type, `${row.key} type`);
    const d = row.default.replace(/`/g, "");
    if (p.default !== undefined) {
      const expected = row.type === "string" ? d.replace(/^"(.*)"$/, "$1") : row.type === "boolean" ? d === "true" : num(d);
      assert.deepEqual(p.default, expected, `${row.key} default`);
    }
    const closed = /^([-\d.e^]+)\.\.([-\d.e^]+)$/.exec(row.range);
    if (closed) {
      assert.equal(p.minimum, num(closed[1]), `${row.key} minimum`);
      assert.equal(p.maximum, num(closed[2]), `${row.key} maximum`);
    }
    const leftOpen = /^\(([-\d.]+), ([-\d.]+)\]$/.exec(row.range);
    if (leftOpen) {
      assert.equal(p.exclusiveMinimum, num(leftOpen[1]), `${row.key} exclusiveMinimum`);
      assert.equal(p.maximum, num(leftOpen[2]), `${row.key} maximum`);
    }
  }
});

test("spec.yaml's examples use documented keys only", () => {
  const walk = (o: Obj, prefix = ""): string[] =>
    Object.entries(o).flatMap(([k, v]) => (v && typeof v === "object" && !Array.isArray(v) ? walk(v, `${prefix}${k}.`) : [prefix + k]));
  for (const schema of [spec.spec.configSchema, spec.spec.routeConfigSchema]) {
    for (const k of walk(schema.openAPIV3Schema.example)) assert.ok(specProps.has(k), k);
  }
});

// examples/README.md is where a user starts: its table names every example file (the workloads as one directory;
// a Dockerfile's .dockerignore goes with it).
test("examples/README.md's table names every file under examples/", () => {
  const table = readFileSync("examples/README.md", "utf8").split("\n").filter((l) => l.startsWith("| `")).map((l) => /^\| `([^`]+)`/.exec(l)![1]);
  const files = (function walk(dir: string): string[] {
    return readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? walk(join(dir, e)) : [join(dir, e)]));
  })("examples").map((f) => posix.relative("examples", f.split("\\").join("/")));
  const unlisted = files.filter((f) => f !== "README.md" && !f.endsWith(".dockerignore") && !(f.startsWith("workloads/") && table.includes("workloads/")) && !table.includes(f));
  assert.deepEqual(unlisted, [], "files examples/README.md does not list");
  for (const path of table) assert.ok(files.some((f) => f === path || f.startsWith(path)), `examples/README.md lists ${path}, which does not exist`);
});
