// The built modules load where they are meant to: every import is one the gateway provides (a module that
// imports anything else fails to load there), and the exports include what a proxy-wasm 0.2.1 host calls.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";
import { compileFixture } from "../support/compile.ts";
import { PluginHost } from "../../src-host/host/plugin-host.ts";
import { MissingImportsError, UnknownAbiError, WasmVm } from "../../src-host/host/vm.ts";
import binaryen from "binaryen";
import { envoyImports } from "../../src-host/host/envoy-imports.ts";
import { higressImports } from "../../src-host/host/higress-imports.ts";
import { redisImports } from "../../src-host/host/redis-imports.ts";

const HIGRESS_ONLY = [
  "env.proxy_get_upstream_hosts", "env.proxy_set_upstream_override_host", "env.proxy_redis_init", "env.proxy_redis_call",
];
const REQUIRED_EXPORTS = [
  "malloc", "memory", "proxy_on_context_create", "proxy_on_vm_start", "proxy_on_configure",
  "proxy_on_request_headers", "proxy_on_request_body", "proxy_on_response_headers", "proxy_on_response_body",
  "proxy_on_log", "proxy_on_done", "proxy_on_delete", "proxy_on_tick", "proxy_on_http_call_response",
];

/** The import names each gateway provides, read from the host's own import tables. */
function provided(flavor: "envoy" | "higress"): Set<string> {
  const fakeVm = { options: {}, abiVersion: flavor === "higress" ? "0.2.100" : "0.2.1" } as unknown as WasmVm;
  const names = Object.keys(envoyImports(fakeVm, () => ({}) as any));
  if (flavor === "higress") names.push(...Object.keys(higressImports(fakeVm)), ...Object.keys(redisImports(fakeVm, () => ({}) as any)));
  return new Set(names);
}

for (const flavor of ["envoy", "higress"] as const) {
  test(`build/${flavor}.wasm imports only what ${flavor === "envoy" ? "stock Envoy" : "Higress"} provides`, () => {
    const mod = new WebAssembly.Module(readBuiltPlugin(flavor));
    const imports = WebAssembly.Module.imports(mod).map((i) => `${i.module}.${i.name}`);
    const have = provided(flavor);
    assert.deepEqual(imports.filter((i) => !have.has(i)), []);
    assert.ok(!imports.includes("env.abort"), "AssemblyScript's abort is routed to our own handler");
    if (flavor === "higress") for (const name of HIGRESS_ONLY) assert.ok(imports.includes(name), `${name} is imported`);
    else for (const name of HIGRESS_ONLY) assert.ok(!imports.includes(name), `${name} must not be imported`);
    const exports = WebAssembly.Module.exports(mod).map((e) => e.name);
    for (const name of REQUIRED_EXPORTS) assert.ok(exports.includes(name), `exports ${name}`);
    assert.equal(exports.includes("proxy_on_redis_call_response"), flavor === "higress", "only the Higress build takes Redis replies");
    const marks = exports.filter((name) => name.startsWith("proxy_abi_version_"));
    assert.deepEqual(marks, [flavor === "higress" ? "proxy_abi_version_0_2_100" : "proxy_abi_version_0_2_1"]);
  });
}

test("stock Envoy refuses the Higress build: it knows no ABI mark of it, and would miss its Higress imports", () => {
  assert.throws(
    () => PluginHost.create({ wasm: readBuiltPlugin("higress"), flavor: "envoy", pluginConfig: "{}" }),
    (e: unknown) => e instanceof UnknownAbiError,
  );
  // The same imports under the 0.2.1 mark: refused by name.
  const m = new binaryen.Module();
  for (const name of HIGRESS_ONLY) m.addFunctionImport(name, "env", name.slice("env.".length), binaryen.none, binaryen.none);
  m.addFunction("proxy_abi_version_0_2_1", binaryen.none, binaryen.none, [], m.nop());
  m.addFunctionExport("proxy_abi_version_0_2_1", "proxy_abi_version_0_2_1");
  const wasm = m.emitBinary();
  m.dispose();
  assert.throws(
    () => PluginHost.create({ wasm, flavor: "envoy", pluginConfig: "{}" }),
    (e: unknown) => e instanceof MissingImportsError && HIGRESS_ONLY.every((n) => e.message.includes(n)),
  );
});

test("a module that imports env.abort (AssemblyScript's default) fails to load, naming it", async () => {
  const asc = (await import("assemblyscript/asc")).default;
  let binary: Uint8Array | null = null;
  const { error } = await asc.main(["tests/guest/aborting.ts", "--runtime", "stub", "--outFile", "out.wasm", "--config", "none.json"], {
    readFile: (name: string, baseDir: string) => {
      if (name === "none.json") return "{}";
      if (name.endsWith("aborting.ts")) return "export function proxy_abi_version_0_2_1(): void {}\nexport function f(x: i32): i32 { assert(x > 0); return x; }";
      return null;
    },
    writeFile: (name: string, contents: Uint8Array) => {
      if (name.endsWith(".wasm")) binary = contents;
    },
  } as any);
  assert.ifError(error);
  assert.throws(() => PluginHost.create({ wasm: binary!, flavor: "envoy" }), (e: unknown) => e instanceof MissingImportsError && e.message.includes("env.abort"));
});

test("the conformance fixture compiles with the plugin's asconfig (no env.abort)", async () => {
  const mod = new WebAssembly.Module(await compileFixture("tests/guest/conformance-plugin.ts"));
  assert.ok(!WebAssembly.Module.imports(mod).some((i) => i.name === "abort"));
});

test("Higress links its own host calls (Redis, upstream hosts, override host) for the 0.2.1 and 0.2.100 ABIs only", () => {
  // higress-group/proxy-wasm-cpp-host src/wasm.cc WasmBase::registerCallbacks: redis_init, redis_call,
  // set_upstream_override_host and get_upstream_hosts are registered under `abiVersion() == ProxyWasm_0_2_1 ||
  // ProxyWasm_0_2_100`; for 0.1.0 and 0.2.0 the module's imports of them find nothing and it fails to load.
  const REDIS = ["env.proxy_redis_init", "env.proxy_redis_call", "env.proxy_get_upstream_hosts", "env.proxy_set_upstream_override_host"];
  for (const version of ["0_1_0", "0_2_0", "0_2_1", "0_2_100"]) {
    const m = new binaryen.Module();
    for (const name of REDIS) m.addFunctionImport(name, "env", name.slice("env.".length), binaryen.none, binaryen.none);
    m.addFunction(`proxy_abi_version_${version}`, binaryen.none, binaryen.none, [], m.nop());
    m.addFunctionExport(`proxy_abi_version_${version}`, `proxy_abi_version_${version}`);
    const wasm = m.emitBinary();
    m.dispose();
    let error: unknown = null;
    try {
      PluginHost.create({ wasm, flavor: "higress", pluginConfig: "{}" });
    } catch (e) {
      error = e;
    }
    const refused = error instanceof MissingImportsError && REDIS.every((n) => (error as Error).message.includes(n));
    assert.equal(refused, version === "0_1_0" || version === "0_2_0", `ABI ${version}: ${String(error)}`);
  }
});
