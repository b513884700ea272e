// Which proxy-wasm ABI a gateway runs a module as, and what that changes: the first version mark it knows decides
// (cpp-host bytecode_util.cc getAbiVersion); only Higress knows its 0.2.100, under which a request-headers
// StopIteration lets the body through to the filter; under 0.2.1 Higress stalls the request as stock Envoy does
// without allow_on_headers_stop_iteration (context.cc convertVmCallResultToFilterHeadersStatus).
import { test } from "node:test";
import assert from "node:assert/strict";
import binaryen from "binaryen";
import { PluginHost } from "../../src-host/host/plugin-host.ts";
import { UnknownAbiError, abiVersionOf } from "../../src-host/host/vm.ts";
import { readBuiltPlugin } from "../../src-host/wasm/built-plugin.ts";

/** A module whose only exports are empty functions with these names, in this order. */
function moduleExporting(names: string[]): WebAssembly.Module {
  const m = new binaryen.Module();
  for (const name of names) {
    m.addFunction(name, binaryen.none, binaryen.none, [], m.nop());
    m.addFunctionExport(name, name);
  }
  const bytes = new Uint8Array(m.emitBinary());
  m.dispose();
  return new WebAssembly.Module(bytes);
}

test("the first mark the gateway knows decides; stock Envoy does not know Higress's 0.2.100 and refuses a module with no other", () => {
  const both = moduleExporting(["proxy_abi_version_0_2_100", "proxy_abi_version_0_2_1"]);
  assert.equal(abiVersionOf(both, "higress"), "0.2.100");
  assert.equal(abiVersionOf(both, "envoy"), "0.2.1");
  const older = moduleExporting(["proxy_on_tick", "proxy_abi_version_0_2_1", "proxy_abi_version_0_2_100"]);
  assert.equal(abiVersionOf(older, "higress"), "0.2.1");
  const higressOnly = moduleExporting(["proxy_abi_version_0_2_100"]);
  assert.equal(abiVersionOf(higressOnly, "higress"), "0.2.100");
  assert.throws(() => abiVersionOf(higressOnly, "envoy"), UnknownAbiError);
  assert.throws(() => abiVersionOf(moduleExporting(["proxy_on_tick"]), "higress"), UnknownAbiError);
});

const CHAT = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello there" }] });

function startChat(host: PluginHost) {
  const s = host.newStream();
  s.decodeHeaders([
    [":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "gateway"], [":scheme", "http"],
    ["content-type", "application/json"], ["content-length", String(CHAT.length)],
  ], false);
  return s;
}

test("on Higress the 0.2.1 stock build's paused request stalls, its body held from it; the Higress build's 0.2.100 request is paused and gets the body", () => {
  const stockOnHigress = PluginHost.create({
    wasm: readBuiltPlugin("envoy"),
    flavor: "higress",
    pluginConfig: JSON.stringify({ endpoints: [{ address: "10.0.0.1:8000", metricsCluster: "m" }] }),
  });
  const stalled = startChat(stockOnHigress);
  assert.equal(stalled.requestState, "stalled");
  stalled.decodeData(new TextEncoder().encode(CHAT), true);
  assert.ok(!stalled.calls.includes("proxy_on_request_body"), "the body does not reach a 0.2.1 filter");
  stockOnHigress.close();

  const higress = PluginHost.create({ wasm: readBuiltPlugin("higress"), flavor: "higress", pluginConfig: "{}" });
  const paused = startChat(higress);
  assert.equal(paused.requestState, "paused");
  paused.decodeData(new TextEncoder().encode(CHAT), true);
  assert.ok(paused.calls.includes("proxy_on_request_body"));
  higress.close();
});
