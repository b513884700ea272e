// A plugin host running tests/guest/body-results-plugin.ts, which returns scripted results from its body callbacks
// (its x-body-results header) and logs what it reads; shared by the body-buffering tests.
import { compileFixture } from "./compile.ts";
import { PluginHost, type PluginHostOptions } from "../../src-host/host/plugin-host.ts";
import type { HeaderList } from "../../src-host/host/header-map.ts";
import type { FilterStream } from "../../src-host/host/filter-stream.ts";

export async function bodyResultsHost(options: Partial<PluginHostOptions> = {}) {
  const wasm = await compileFixture("tests/guest/body-results-plugin.ts");
  const checks: Array<[string, string]> = [];
  const host = PluginHost.create({
    wasm,
    flavor: "higress",
    pluginConfig: "{}",
    log: (_level, message) => {
      const m = /^CHECK (\S+) ?(.*)$/s.exec(message);
      if (m) checks.push([m[1], m[2]]);
    },
    ...options,
  });
  /** What the module logged under `name`, in order. */
  const values = (name: string) => checks.filter(([n]) => n === name).map(([, v]) => v);
  /** The module calls continue_stream for the stream from its root context (outside any callback of the stream). */
  const continueStream = (s: FilterStream, type: number) => {
    const worker = host.workers[0];
    worker.vm.call("body_results_continue_stream", [s.contextId, type], worker.rootContextId);
  };
  /** The module reads the stream's body of `type` from its root context. */
  const readOutside = (s: FilterStream, type: number) => {
    const worker = host.workers[0];
    worker.vm.call("body_results_read", [s.contextId, type], worker.rootContextId);
  };
  return { host, values, continueStream, readOutside };
}

/** A POST request's headers, with `extra` after the pseudo-headers. */
export function bodyRequest(extra: HeaderList): HeaderList {
  return [[":method", "POST"], [":path", "/v1/chat/completions"], [":authority", "gateway"], [":scheme", "http"], ...extra];
}
