// Bounded load-and-soak test of the gateway with the plugin against the same gateway without it:
//   tsx src-host/cli/soak.ts --seconds S --rps R [--json] [--flavor higress|envoy] [--workers N] [--backends N]
//                            [--speed X] [--seed N] [--max-inflight N] [--timeout-ms N] [--no-direct]
// Exit code 1 on any error, plugin inflight left at the end, linear memory growth in the second half, or a
// traffic process that did not exit by itself; 2 on bad arguments. Needs build/<flavor>.wasm (npm run build).
import { parseArgs } from "node:util";
import { runSoak } from "../soak/run-soak.ts";
import { formatSoakReport } from "../soak/soak-report-text.ts";

function fail(message: string): never {
  process.stderr.write(`soak: ${message}\n`);
  process.exit(2);
}

const parse = () =>
  parseArgs({
    options: {
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
    },
    strict: true,
  });
let values: ReturnType<typeof parse>["values"];
try {
  ({ values } = parse());
} catch (e) {
  fail((e as Error).message);
}

function positive(name: string, integer: boolean, max: number): number {
  const raw = (values as Record<string, unknown>)[name] as string;
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0 || v > max || (integer && !Number.isInteger(v))) fail(`--${name} must be a positive ${integer ? "integer" : "number"} up to ${max}, got "${raw}"`);
  return v;
}

const flavor = values.flavor!;
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

try {
  const report = await runSoak({ ...options, progress: (line) => process.stderr.write(`soak: ${line}\n`) });
  process.stdout.write(values.json ? JSON.stringify(report) + "\n" : formatSoakReport(report));
  // exitCode rather than exit(): the process must end by itself, which shows nothing was left open.
  process.exitCode = report.ok ? 0 : 1;
} catch (e) {
  process.stderr.write(`soak: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
}
