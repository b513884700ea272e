// npm run sim:replicas -- [--workloads a.json,b.json] [--replicas 1,2,4,8] [--seeds 1,2,3] [--scale F] [--redis-rtt-ms MS] [--wasm PATH]
// The picker behind N gateway replicas, with and without Redis-shared hints: hit rate and TTFT p90 per replica
// count, medians over seeds, and each as a ratio to the same policy's single-replica run on the same seeds.
import { readFileSync } from "node:fs";
import { runPolicies } from "../sim/run-policies.ts";
import { parseWorkload, scaleWorkload, WorkloadError, type Workload } from "../sim/workload.ts";
import { seconds } from "../sim/summary-table.ts";
import { numberArg, parseCliArgs, usageError } from "../util/cli-args.ts";

const DEFAULT_WORKLOADS = "examples/workloads/llm-d-150x5.json,examples/workloads/multi-turn-chat-mix.json";
const USAGE = `usage: npm run sim:replicas -- [options]
  --workloads a.json,b.json  workloads to run, one table each (default: ${DEFAULT_WORKLOADS})
  --replicas 1,2,4,8         gateway replica counts (default 1,2,4,8; include 1 for the ratio columns)
  --seeds 1,2,3              workload seeds; the table shows medians over them (default 1,2,3)
  --scale F                  multiply arrival durations and fault times by F (default 1; < 1 for quick runs)
  --redis-rtt-ms MS          round-trip time of the Redis picker-redis shares between replicas (default 0.5)
  --wasm PATH                plugin module (default build/higress.wasm)
  -h, --help                 print this text and exit`;

const TOOL = "sim-replicas";
const args = parseCliArgs(TOOL, USAGE, {
  workloads: { type: "string", default: DEFAULT_WORKLOADS },
  replicas: { type: "string", default: "1,2,4,8" },
  seeds: { type: "string", default: "1,2,3" },
  scale: { type: "string", default: "1" },
  "redis-rtt-ms": { type: "string", default: "0.5" },
  wasm: { type: "string", default: "build/higress.wasm" },
});
const list = (s: string) => s.split(",").map((x) => x.trim()).filter(Boolean);
const nonEmpty = (flag: string, xs: string[]) => (xs.length > 0 ? xs : usageError(TOOL, `--${flag} is empty`));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const replicaCounts = nonEmpty("replicas", list(args.replicas)).map((x) => numberArg(TOOL, "replicas", x, { integer: true, positive: true }));
// Seeds are used modulo 2^32 (util/seeded-random.ts): a larger one would repeat a smaller one's run.
const seeds = nonEmpty("seeds", list(args.seeds)).map((x) => numberArg(TOOL, "seeds", x, { integer: true, min: 0, max: 0xffff_ffff }));
const scale = numberArg(TOOL, "scale", args.scale, { positive: true });
const redisRttMs = numberArg(TOOL, "redis-rtt-ms", args["redis-rtt-ms"], { min: 0 });
let wasm: Uint8Array;
try {
  wasm = readFileSync(args.wasm);
} catch {
  usageError(TOOL, `cannot read the plugin module ${args.wasm} (run npm run build, or pass --wasm)`);
}
// Every workload is read and checked before the first (long) run.
const workloads: Workload[] = nonEmpty("workloads", list(args.workloads)).map((file) => {
  try {
    return scaleWorkload(parseWorkload(JSON.parse(readFileSync(file, "utf8")), file), scale);
  } catch (e) {
    if (e instanceof WorkloadError || e instanceof SyntaxError) usageError(TOOL, `${file}: ${e.message}`);
    usageError(TOOL, `cannot read --workloads ${file}: ${(e as Error).message}`);
  }
});
const policies = ["picker", "picker-redis"];
/** A ratio column: "-" without a 1-replica run to compare with. */
const ratio = (x: number) => (Number.isNaN(x) ? "-" : x.toFixed(2)).padStart(11);

for (const base of workloads) {
  // [policy][replicas] -> per-seed {hit, p90}
  const runs = new Map<string, Array<{ hit: number; p90: number }>>();
  for (const n of replicaCounts) {
    for (const seed of seeds) {
      const result = await runPolicies({ ...base, seed }, policies, {
        wasm, gatewayReplicas: n, redisRttMs, parallel: 2,
      });
      for (const p of policies) {
        const s = result.policies[p];
        const key = `${p}@${n}`;
        if (!runs.has(key)) runs.set(key, []);
        runs.get(key)!.push({ hit: s.token_hit_rate, p90: s.ttft_p90_s });
      }
      process.stderr.write(`sim-replicas: ${base.name} replicas=${n} seed=${seed} done\n`);
    }
  }
  const lines = [
    `workload ${base.name} (scale ${args.scale}, seeds ${seeds.join(",")}, Redis RTT ${args["redis-rtt-ms"]} ms): medians over seeds; ratios to the same policy at 1 replica, per seed`,
    "policy        replicas  hit rate  x 1-replica  TTFT p90  x 1-replica",
  ];
  for (const p of policies) {
    const one = runs.get(`${p}@1`);
    for (const n of replicaCounts) {
      const r = runs.get(`${p}@${n}`)!;
      const hitRatio = one ? median(r.map((x, i) => x.hit / one[i].hit)) : NaN;
      const p90Ratio = one ? median(r.map((x, i) => x.p90 / one[i].p90)) : NaN;
      lines.push(
        `${p.padEnd(12)}  ${String(n).padStart(8)}  ${(median(r.map((x) => x.hit)) * 100).toFixed(1).padStart(7)}%  ${ratio(hitRatio)}  ${seconds(median(r.map((x) => x.p90)), 1).padStart(8)}  ${ratio(p90Ratio)}`,
      );
    }
  }
  process.stdout.write(lines.join("\n") + "\n\n");
}
