// npm run sim -- --workload FILE [--policies a,b] [--requests N] [--scale F] [--json] [--report PATH]
//                [--wasm PATH] [--config FILE] [--health-check-ms MS] [--replicas N] [--workers N] [--redis-rtt-ms MS]
//                [--seed N] [--diagnose] [--request-log PREFIX]
// Runs each policy over the workload on fresh simulated pods and prints a table (or one JSON object).
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { numberArg, parseCliArgs, usageError } from "../util/cli-args.ts";
import { prepareReportPath } from "./report-path.ts";
import { htmlReport } from "../sim/html-report.ts";
import { DEFAULT_POLICIES, policyFactory } from "../sim/policies/registry.ts";
import { runPolicies } from "../sim/run-policies.ts";
import { summaryTable } from "../sim/summary-table.ts";
import { parseWorkload, scaleWorkload, WorkloadError } from "../sim/workload.ts";

const USAGE = `usage: npm run sim -- --workload FILE [options]
  --workload FILE        workload JSON (see examples/workloads/)
  --policies a,b,c       policies to compare (default: ${DEFAULT_POLICIES.join(",")})
  --requests N           stop sending after N requests
  --scale F              multiply arrival durations and fault times by F (quick runs)
  --seed N               replace the workload's seed (arrivals, content, pods), to repeat a run on other draws
  --json                 print one JSON object {"policies": {...}} instead of the table
  --report PATH          HTML report path (default build/sim-report.html; "" to skip)
  --wasm PATH            plugin module for the picker policy (default build/higress.wasm)
  --wasm-envoy PATH      stock Envoy build for the picker-envoy policy (default build/envoy.wasm)
  --config FILE          plugin configuration JSON for the picker policies (picker, picker-redis, picker-envoy;
                         picker-envoy adds its endpoints and metrics clusters; default {})
  --health-check-ms MS   gateway health check / metrics refresh period (default 1000): when a gateway (the picker's,
                         and the Envoy balancers of round-robin, random, least-request, consistent-hash) learns that
                         a pod went down, left or came back
  --replicas N           gateway replicas in front of the pods (picker, picker-redis; default 1)
  --workers N            worker VMs per gateway replica, taking streams in turn (picker policies; default 2)
  --redis-rtt-ms MS      round-trip time of the Redis picker-redis shares between replicas (default 0.5)
  --parallel N           worker threads running policies side by side (default: min(2, CPUs))
  --diagnose             the picker's index against the pods' real caches, decision by decision: precision and
                         recall, and why a pod holding a longer cached prefix lost (index, guard, or which signal);
                         for every policy, where it placed requests: the prompt share the chosen and the best pod
                         held, and how often a group or conversation left its previous request's pod
  --request-log PREFIX   write one JSON line per request to PREFIX<policy>.jsonl: arrival, pick, chosen pod and its
                         queue then, cached tokens there and on the best pod, TTFT or why it failed
  -h, --help             print this text and exit`;

function die(message: string): never {
  usageError("sim", message);
}

async function main(): Promise<void> {
  const args = parseCliArgs("sim", USAGE, {
    workload: { type: "string" },
    policies: { type: "string" },
    requests: { type: "string" },
    scale: { type: "string" },
    seed: { type: "string" },
    json: { type: "boolean", default: false },
    report: { type: "string", default: "build/sim-report.html" },
    wasm: { type: "string", default: "build/higress.wasm" },
    "wasm-envoy": { type: "string", default: "build/envoy.wasm" },
    config: { type: "string" },
    "health-check-ms": { type: "string" },
    parallel: { type: "string" },
    replicas: { type: "string" },
    workers: { type: "string" },
    "redis-rtt-ms": { type: "string" },
    diagnose: { type: "boolean", default: false },
    "request-log": { type: "string" },
  });
  if (!args.workload) die("--workload FILE is required; see --help");
  const num = (flag: string, text: string | undefined, check: Parameters<typeof numberArg>[3]) =>
    text === undefined ? undefined : numberArg("sim", flag, text, check);
  const scale = num("scale", args.scale, { positive: true });
  // Seeds are used modulo 2^32 (util/seeded-random.ts): a larger one would silently repeat a smaller one's run.
  const seed = num("seed", args.seed, { integer: true, min: 0, max: 0xffff_ffff });
  const maxRequests = num("requests", args.requests, { integer: true, positive: true });
  const healthCheckIntervalMs = num("health-check-ms", args["health-check-ms"], { positive: true });
  const gatewayReplicas = num("replicas", args.replicas, { integer: true, positive: true });
  const gatewayWorkers = num("workers", args.workers, { integer: true, min: 1, max: 64 });
  const redisRttMs = num("redis-rtt-ms", args["redis-rtt-ms"], { min: 0 });
  const parallel = num("parallel", args.parallel, { integer: true, positive: true }) ?? Math.min(2, availableParallelism());
  const policies = args.policies !== undefined ? args.policies.split(",").map((p) => p.trim()).filter(Boolean) : DEFAULT_POLICIES;
  if (policies.length === 0) die("--policies is empty; see --help");
  for (const p of policies) {
    try {
      policyFactory(p);
    } catch (e) {
      die((e as Error).message);
    }
  }

  let workload;
  try {
    workload = parseWorkload(JSON.parse(readFileSync(args.workload, "utf8")), "workload");
  } catch (e) {
    if (e instanceof WorkloadError || e instanceof SyntaxError) die(`${args.workload}: ${e.message}`);
    if (typeof (e as NodeJS.ErrnoException).code === "string") die(`cannot read --workload ${args.workload}: ${(e as Error).message}`);
    throw e;
  }
  if (scale !== undefined) workload = scaleWorkload(workload, scale);
  if (seed !== undefined) workload = { ...workload, seed };

  let wasm: Uint8Array | undefined;
  if (policies.some((p) => p.startsWith("picker"))) {
    try {
      wasm = readFileSync(args.wasm);
    } catch {
      die(`cannot read the plugin module ${args.wasm} (run npm run build, or pass --wasm)`);
    }
  }
  let wasmEnvoy: Uint8Array | undefined;
  if (policies.some((p) => p.startsWith("picker-envoy"))) {
    try {
      wasmEnvoy = readFileSync(args["wasm-envoy"]);
    } catch {
      die(`cannot read the plugin module ${args["wasm-envoy"]} (run npm run build, or pass --wasm-envoy)`);
    }
  }
  let pluginConfig: string | undefined;
  if (args.config !== undefined) {
    try {
      pluginConfig = readFileSync(args.config, "utf8");
    } catch (e) {
      die(`cannot read --config ${args.config}: ${(e as Error).message}`);
    }
  }

  if (args.report) prepareReportPath("sim", "report", args.report);

  const result = await runPolicies(workload, policies, { wasm, wasmEnvoy, pluginConfig, maxRequests, healthCheckIntervalMs, parallel, diagnose: args.diagnose, gatewayReplicas, gatewayWorkers, redisRttMs,
    requestLog: args["request-log"] !== undefined,
    onProgress: (line: string) => process.stderr.write(line + "\n") }, (run) => {
    if (!args.json) process.stderr.write(`sim: ${run.policy} done in ${run.summary.wall_s.toFixed(1)} s\n`);
  });

  if (args.report) writeFileSync(args.report, htmlReport(result));
  const logPrefix = args["request-log"];
  if (logPrefix !== undefined) {
    for (const run of result.runs) {
      writeFileSync(`${logPrefix}${run.policy}.jsonl`, (run.requests ?? []).map((r) => JSON.stringify(r) + "\n").join(""));
    }
  }
  if (args.json) {
    process.stdout.write(JSON.stringify({ workload: result.workload, policies: result.policies }) + "\n");
  } else {
    process.stdout.write(`workload ${workload.name}: ${workload.pods.count} pods\n${summaryTable(result.runs)}\n`);
    if (args.report) process.stdout.write(`report: ${args.report}\n`);
  }
}

await main();
