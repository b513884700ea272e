// Runs several policies over the same workload, each on fresh pods with the same arrivals and content;
// with `parallel` > 1 the policies run on that many worker threads (results keep the requested order).
import { Worker } from "node:worker_threads";
import type { PolicyJob } from "./policy-worker.ts";
import { DEFAULT_POLICIES, policyFactory } from "./policies/registry.ts";
import { runPolicy, type PolicyRun, type SimulationOptions } from "./simulation.ts";
import { VocabularyTokenizer } from "./vocabulary-tokenizer.ts";
import type { Workload } from "./workload.ts";

export interface SimResult {
  workload: string;
  policies: Record<string, PolicyRun["summary"]>;
  runs: PolicyRun[];
}

export interface RunOptions extends Partial<SimulationOptions> {
  /** Worker threads to spread the policies over; 1 (default) runs them one after another in this thread. */
  parallel?: number;
}

export async function runPolicies(
  workload: Workload,
  policies: readonly string[] = DEFAULT_POLICIES,
  options: RunOptions = {},
  onDone?: (run: PolicyRun) => void,
): Promise<SimResult> {
  for (const name of policies) policyFactory(name);
  const { parallel = 1, tokenizer: given, ...simOptions } = options;
  let runs: PolicyRun[];
  if (parallel > 1 && policies.length > 1) {
    const { onProgress, ...threadOptions } = simOptions;
    const progress = onProgress !== undefined;
    runs = await runOnWorkers(workload, policies, threadOptions, progress, Math.min(parallel, policies.length), onDone);
  } else {
    const tokenizer = given ?? new VocabularyTokenizer({ memoEntries: 32_768 });
    runs = [];
    for (const name of policies) {
      const run = await runPolicy(workload, name, policyFactory(name), { ...simOptions, tokenizer });
      runs.push(run);
      onDone?.(run);
    }
  }
  const summaries: Record<string, PolicyRun["summary"]> = {};
  for (const r of runs) summaries[r.policy] = r.summary;
  return { workload: workload.name, policies: summaries, runs };
}

async function runOnWorkers(
  workload: Workload,
  policies: readonly string[],
  options: PolicyJob["options"],
  progress: boolean,
  threads: number,
  onDone?: (run: PolicyRun) => void,
): Promise<PolicyRun[]> {
  const results: PolicyRun[] = new Array(policies.length);
  let next = 0;
  // The .mjs entry registers tsx in the worker thread before loading the TypeScript worker.
  const workers = Array.from({ length: threads }, () => new Worker(new URL("./policy-worker.mjs", import.meta.url)));
  try {
    await Promise.all(
      workers.map(async (worker) => {
        while (next < policies.length) {
          const i = next++;
          const job: PolicyJob = { workload, policy: policies[i], options, progress };
          const reply = await new Promise<{ ok: boolean; run?: PolicyRun; error?: string }>((resolve, reject) => {
            worker.once("message", resolve);
            worker.once("error", reject);
            worker.postMessage(job);
          });
          worker.removeAllListeners("error");
          if (!reply.ok) throw new Error(`policy ${policies[i]} failed in a worker: ${reply.error}`);
          results[i] = reply.run!;
          onDone?.(reply.run!);
        }
      }),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}
