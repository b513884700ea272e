// The gateway CLI answers start-up mistakes a user makes with one line on stderr and exit code 2, not a stack trace.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { startBackend, USAGE_TRAILERS } from "../../src-host/backend/server.ts";

const run = async (args: string[]): Promise<{ code: number; stderr: string }> => {
  try {
    await promisify(execFile)(process.execPath, ["--import", "tsx", "src-host/cli/gateway.ts", ...args], { encoding: "utf8", timeout: 60_000 });
    return { code: 0, stderr: "" };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    return { code: err.code ?? -1, stderr: err.stderr ?? "" };
  }
};

test("unreadable files, a refused config, a bad upstream, 0 workers, a busy port and timers past Node's limit are one-line errors", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-cli-"));
  const badConfig = join(dir, "bad.json");
  writeFileSync(badConfig, JSON.stringify({ weights: { queue: -1 } }));
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
  const busyPort = String((busy.address() as { port: number }).port);
  try {
    const up = ["--upstream", "127.0.0.1:1"];
    const cases: [string[], RegExp][] = [
      [[...up, "--plugin", join(dir, "none.wasm")], /^gateway: cannot read --plugin .*none\.wasm \(ENOENT\)$/m],
      [[...up, "--plugin-config", join(dir, "none.json")], /^gateway: cannot read --plugin-config .*none\.json \(ENOENT\)$/m],
      [[...up, "--port", "0", "--plugin-config", badConfig], /^gateway: plugin endpoint_picker rejected its configuration/m],
      [["--upstream", "localhost", "--port", "0", "--no-plugin"], /^gateway: upstream address must be host:port, got "localhost"$/m],
      [[...up, "--workers", "0"], /^gateway: --workers must be a positive integer up to 64, got "0"$/m],
      [[...up, "--port", busyPort, "--no-plugin"], /^gateway: cannot listen on port \d+ \(EADDRINUSE\)$/m],
      // Node's timers take at most 2^31 - 1 ms; a longer one fires after 1 ms (every request would be answered 504).
      [[...up, "--port", "0", "--no-plugin", "--request-timeout-ms", "3000000000"], /^gateway: --request-timeout-ms must be a non-negative integer up to 2147483647, got "3000000000"$/m],
      [[...up, "--port", "0", "--no-plugin", "--stream-idle-timeout-ms", "3000000000"], /^gateway: --stream-idle-timeout-ms must be a non-negative integer up to 2147483647, got "3000000000"$/m],
      [[...up, "--port", "0", "--no-plugin", "--route-idle-timeout-ms", "3000000000"], /^gateway: --route-idle-timeout-ms must be a non-negative integer up to 2147483647, got "3000000000"$/m],
      [[...up, "--port", "0", "--no-plugin", "--hcm-request-timeout-ms", "2147483648"], /^gateway: --hcm-request-timeout-ms must be a non-negative integer up to 2147483647, got "2147483648"$/m],
      [[...up, "--port", "0", "--no-plugin", "--request-headers-timeout-ms", "3000000000"], /^gateway: --request-headers-timeout-ms must be a non-negative integer up to 2147483647, got "3000000000"$/m],
      [[...up, "--port", "0", "--no-plugin", "--connection-idle-timeout-ms", "2147483647"], /^gateway: --connection-idle-timeout-ms must be a non-negative integer up to 2147478647, got "2147483647"$/m],
      [[...up, "--port", "0", "--no-plugin", "--health-interval-ms", "2147483648"], /^gateway: --health-interval-ms must be a positive integer up to 2147483647, got "2147483648"$/m],
      [[...up, "--port", "0", "--flavor", "envoy", "--envoy127-body-order"], /^gateway: --envoy127-body-order models Higress before 2\.2: it needs the higress flavor and a plugin$/m],
      [[...up, "--port", "0", "--no-plugin", "--envoy127-body-order"], /^gateway: --envoy127-body-order models Higress before 2\.2: it needs the higress flavor and a plugin$/m],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await run(args);
      assert.equal(code, 2, `${args.join(" ")}: exit ${code}\n${stderr}`);
      assert.match(stderr, message, args.join(" "));
      assert.doesNotMatch(stderr, /^\s+at /m, `${args.join(" ")}: a stack trace\n${stderr}`);
    }
  } finally {
    busy.close();
  }
});

test("--envoy127-body-order runs the plugin in Envoy 1.27's body order (PluginHostOptions.envoy127BodyOrder), which the start-up line names", async () => {
  const started = async (extra: string[]): Promise<string> => {
    const child = spawn(process.execPath, ["--import", "tsx", "src-host/cli/gateway.ts", "--upstream", "127.0.0.1:1", "--port", "0", "--workers", "1", ...extra]);
    let out = "";
    try {
      return await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d) => {
          out += d;
          const line = /^gateway listening on .*$/m.exec(out);
          if (line) resolve(line[0]);
        });
        child.on("exit", (code) => reject(new Error(`gateway exited ${code} before listening: ${out}`)));
      });
    } finally {
      child.kill();
    }
  };
  assert.match(await started(["--envoy127-body-order"]), /\(higress plugin in Envoy 1\.27's body order, 1 workers;/);
  assert.match(await started([]), /\(higress plugin, 1 workers;/);
});

test("--downstream-trailers and --upstream-trailers pass HTTP/1 trailers (Http1ProtocolOptions.enable_trailers per side); without them the codecs drop them", async () => {
  const backend = await startBackend({ usageTrailers: true, engine: { speed: 50 } });
  const trailersThrough = async (extra: string[]): Promise<Record<string, string | undefined>> => {
    const child = spawn(process.execPath, ["--import", "tsx", "src-host/cli/gateway.ts", "--upstream", `127.0.0.1:${backend.port}`, "--port", "0", "--no-plugin", "--quiet", ...extra]);
    let out = "";
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d) => {
          out += d;
          const line = /^gateway listening on (http:\/\/\S+)/m.exec(out);
          if (line) resolve(line[1]);
        });
        child.on("exit", (code) => reject(new Error(`gateway exited ${code} before listening: ${out}`)));
      });
      const body = JSON.stringify({ model: "sim-model", stream: true, max_tokens: 2, messages: [{ role: "user", content: "hi" }] });
      return await new Promise((resolve, reject) => {
        const req = request(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, agent: false }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.trailers));
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end(body);
      });
    } finally {
      child.kill();
    }
  };
  try {
    const both = await trailersThrough(["--downstream-trailers", "--upstream-trailers"]);
    for (const name of USAGE_TRAILERS) assert.match(both[name] ?? "", /^\d+$/, `${name} reached the client`);
    assert.deepEqual(await trailersThrough(["--upstream-trailers"]), {}, "the client side drops them");
    assert.deepEqual(await trailersThrough([]), {});
  } finally {
    await backend.close();
  }
});
