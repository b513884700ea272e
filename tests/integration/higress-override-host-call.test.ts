// Higress's proxy_set_upstream_override_host as higress-group/proxy-wasm-cpp-host exports.cc set_upstream_override_host
// answers it: the address must be in memory, then Ok whatever Context::setUpstreamOverrideHost does, so from a root
// context (no stream to override) too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFixture } from "../support/compile.ts";
import { PluginHost } from "../../src-host/host/plugin-host.ts";
import { Status } from "../../src-host/host/abi.ts";

test("proxy_set_upstream_override_host is Ok on a root context, where it overrides nothing, and on a stream, which it overrides", async () => {
  const host = PluginHost.create({ wasm: await compileFixture("tests/guest/higress-target.ts"), flavor: "higress", pluginConfig: "{}" });
  const worker = host.workers[0];
  assert.equal(worker.vm.call("override_host_status", [], worker.rootContextId), Status.Ok);
  const s = host.newStream();
  assert.equal(worker.vm.call("override_host_status", [], s.contextId), Status.Ok);
  assert.equal(s.overrideHost, "10.0.0.1:8000");
});
