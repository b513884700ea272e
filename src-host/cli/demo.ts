// The main demo (`npm start`): simulated vLLM backends behind the local gateway, a multi-turn chat workload
// through the official openai client, once with the KV-aware picker per plugin build and once with plain round robin.
//   tsx src-host/cli/demo.ts [--backends 4] [--conversations 40] [--speed 6] [--flavor both|higress|envoy]
//     [--workers 2] [--connections session|pooled] [--quick] [--json] [--report build/demo-report.html]
// --json prints the result as JSON on stdout (progress goes to stderr); --quick is a tiny run for tests.
// Exit code 1 when a run had a failed or unsent request, 2 on bad arguments.
import { writeFileSync } from "node:fs";
import { DEFAULT_WORKLOAD, QUICK_WORKLOAD } from "../demo/chat-workload.ts";
import { demoReportHtml } from "../demo/html-report.ts";
import { ProgressLine } from "../demo/progress-line.ts";
import { resultTable } from "../demo/result-table.ts";
import { runFailures } from "../demo/run-failures.ts";
import { DEFAULT_ENGINE, FLAVOR_NAMES, runComparison, type DemoSettings } from "../demo/run-comparison.ts";
import type { Flavor } from "../host/vm.ts";
import { readBuiltPlugin } from "../wasm/built-plugin.ts";
import { numberArg, parseCliArgs, usageError } from "../util/cli-args.ts";
import { prepareReportPath } from "./report-path.ts";

const USAGE = `usage: npm start -- [options]   (or tsx src-host/cli/demo.ts [options])
  --backends N                  simulated vLLM backends (default 4; 2 with --quick)
  --conversations N             scripted chat conversations (default ${DEFAULT_WORKLOAD.conversations}; ${QUICK_WORKLOAD.conversations} with --quick)
  --speed X                     how much faster than real time the backends run (default 6; 20 with --quick)
  --flavor both|higress|envoy   plugin builds to run the picker with (default both)
  --workers N                   gateway worker VMs, up to 64 (default 2)
  --connections session|pooled  one connection per conversation, or a shared pool (default session)
  --quick                       a tiny run, for tests
  --json                        print the result as JSON on stdout (progress goes to stderr)
  --report PATH                 HTML report with the TTFT CDFs (default build/demo-report.html; "" to skip)
  -h, --help                    print this text and exit
Exit code 1 when any run had a failed request, 2 on bad arguments.`;

const TOOL = "demo";
const values = parseCliArgs(TOOL, USAGE, {
  backends: { type: "string" },
  conversations: { type: "string" },
  speed: { type: "string" },
  flavor: { type: "string", default: "both" },
  workers: { type: "string", default: "2" },
  connections: { type: "string", default: "session" },
  quick: { type: "boolean", default: false },
  json: { type: "boolean", default: false },
  report: { type: "string", default: "build/demo-report.html" },
});

function fail(message: string): never {
  usageError(TOOL, message);
}

function positiveInt(name: string, v: string | undefined, fallback: number, max = Infinity): number {
  return v === undefined ? fallback : numberArg(TOOL, name, v, { integer: true, positive: true, max });
}

const quick = values.quick!;
const flavor = values.flavor;
if (flavor !== "higress" && flavor !== "envoy" && flavor !== "both") fail(`--flavor must be both, higress or envoy, got "${flavor}"`);
const flavors: Flavor[] = flavor === "both" ? ["higress", "envoy"] : [flavor];
const connections = values.connections;
if (connections !== "session" && connections !== "pooled") fail(`--connections must be session or pooled, got "${connections}"`);
const speedText = values.speed;
const speed = speedText === undefined ? (quick ? 20 : 6) : numberArg(TOOL, "speed", speedText, { positive: true });

const baseWorkload = quick ? QUICK_WORKLOAD : DEFAULT_WORKLOAD;
const settings: DemoSettings = {
  backends: positiveInt("backends", values.backends, quick ? 2 : 4),
  workload: { ...baseWorkload, conversations: positiveInt("conversations", values.conversations, baseWorkload.conversations) },
  speed,
  engine: { ...DEFAULT_ENGINE },
  flavors,
  // Each worker is a VM with its own linear memory; the simulator allows as many.
  workers: positiveInt("workers", values.workers, 2, 64),
  connections,
  // Metrics refresh every modelled second: the speed factor compresses the health-check interval too.
  healthIntervalMs: Math.max(50, Math.round(1000 / speed)),
  modelName: "sim-model",
};

const wasm: Partial<Record<Flavor, Uint8Array>> = {};
for (const f of flavors) {
  try {
    wasm[f] = readBuiltPlugin(f);
  } catch (e) {
    fail((e as Error).message);
  }
}

const reportPath = values.report!;
if (reportPath) prepareReportPath(TOOL, "report", reportPath);

const json = values.json!;
// With --json, stdout carries only the result.
const out = json ? process.stderr : process.stdout;
const progress = new ProgressLine(out);
out.write(
  `demo: ${settings.backends} simulated vLLM backends, ${settings.workload.conversations} conversations, speed ${speed}x, ` +
    `picker runs with the ${flavors.map((f) => FLAVOR_NAMES[f]).join(" and the ")} on ${settings.workers} gateway workers, ${connections === "session" ? "one connection per conversation" : "pooled connections"}\n`,
);

const result = await runComparison(settings, wasm, {
  onProgress: (label, p) => progress.update(label, p),
  onRunDone: (r) => {
    const s = r.summary;
    progress.done(`${r.label}: ${s.requests} requests, ${s.errors} errors in ${s.wallSeconds.toFixed(1)} s`);
  },
});

if (reportPath) writeFileSync(reportPath, demoReportHtml(result));

if (json) {
  process.stdout.write(JSON.stringify({ ...result, report: reportPath || null }, null, 2) + "\n");
} else {
  process.stdout.write(`\n${resultTable(result)}\n${reportPath ? `\nreport: ${reportPath}\n` : ""}`);
}
const failures = runFailures(result);
for (const line of failures) process.stderr.write(`demo: FAILED ${line}\n`);
process.exitCode = failures.length > 0 ? 1 : 0;
