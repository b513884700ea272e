// Bounded load-and-soak test of the gateway with the plugin against the same gateway without it:
//   tsx src-host/cli/soak.ts --seconds S --rps R [--json] [--flavor higress|envoy] [--workers N] [--backends N]
//                            [--speed X] [--seed N] [--max-inflight N] [--timeout-ms N] [--no-direct]
// Exit code 1 on any error, plugin inflight left at the end, linear memory growth in the second half, or a
// traffic process that did not exit by itself; 2 on bad arguments. Needs build/<flavor>.wasm (npm run build).
import { existsSync } from "node:fs";
import { runSoak } from "../soak/run-soak.ts";
import { formatSoakReport } from "../soak/soak-report-text.ts";
import { builtPluginPath } from "../wasm/built-plugin.ts";
import { parseCliArgs, usageError } from "../util/cli-args.ts";

const USAGE = `usage: npm run soak -- [options]   (needs build/<flavor>.wasm: npm run build)
  --seconds S         length of the traffic phase (default 60, up to 3600)
  --rps R             arrivals per second over all arms (default 50)
  --json              print one JSON object on stdout; progress goes to stderr
  --flavor F          plugin build: higress or envoy (default higress)
  --workers N         plugin VMs in the plugin gateway (default 2)
  --backends N        simulated backends (default 3)
  --speed X           backend engine speed factor (default 100)
  --seed N            arrivals and request content seed (default 1)
  --max-inflight N    open client requests at most; arrivals above are dropped and counted (default 256)
  --timeout-ms N      client request timeout (default 15000)
  --no-direct         no direct-to-backend arm (the backends' own baseline)
  -h, --help          print this text and exit
Exit code 1 on any error, plugin inflight left at the end, linear memory growth, or a traffic process that
did not exit by itself; 2 on bad arguments.`;

const TOOL = "soak";
const values = parseCliArgs(TOOL, USAGE, {
  seconds: { type: "string", default: "60" },
  rps: { type: "string", default: "50" },
  json: { type: "boolean", default: false },
  flavor: { type: "string", default: "higress" },
  workers: { type: "string", default: "2" },
  backends: { type: "string", default: "3" },
  speed: { type: "string", default: "100" },
  seed: { type: "string", default: "1" },
  "max-inflight": { type: "string", default: "256" },
  "timeout-ms": { type: "string", default: "15000" },
  "no-direct": { type: "boolean", default: false },
});

function fail(message: string): never {
  usageError(TOOL, message);
}

function positive(name: string, integer: boolean, max: number): number {
  const raw = (values as Record<string, unknown>)[name] as string;
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0 || v > max || (integer && !Number.isInteger(v))) fail(`--${name} must be a positive ${integer ? "integer" : "number"} up to ${max}, got "${raw}"`);
  return v;
}

const flavor = values.flavor;
if (flavor !== "higress" && flavor !== "envoy") fail(`--flavor must be higress or envoy, got "${flavor}"`);
const options = {
  seconds: positive("seconds", false, 3600),
  rps: positive("rps", false, 10_000),
  flavor: flavor as "higress" | "envoy",
  workers: positive("workers", true, 64),
  backends: positive("backends", true, 64),
  speed: positive("speed", false, 1e6),
  seed: positive("seed", true, 2 ** 31 - 1),
  maxInflight: positive("max-inflight", true, 100_000),
  timeoutMs: positive("timeout-ms", true, 600_000),
  direct: !values["no-direct"],
};
// As demo does: a missing build is one line, before the traffic process starts.
if (!existsSync(builtPluginPath(options.flavor))) fail(`${builtPluginPath(options.flavor)} is missing: run \`npm run build\` first`);

try {
  const report = await runSoak({ ...options, progress: (line) => process.stderr.write(`soak: ${line}\n`) });
  process.stdout.write(values.json ? JSON.stringify(report) + "\n" : formatSoakReport(report));
  // exitCode rather than exit(): the process must end by itself, which shows nothing was left open.
  process.exitCode = report.ok ? 0 : 1;
} catch (e) {
  process.stderr.write(`soak: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
}
