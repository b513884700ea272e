// A worker thread that runs policies for run-policies.ts: receives {workload, policy, options} messages,
// answers each with the PolicyRun (plain data) or an error message.
import { parentPort } from "node:worker_threads";
import { policyFactory } from "./policies/registry.ts";
import { runPolicy, type SimulationOptions } from "./simulation.ts";
import { VocabularyTokenizer } from "./vocabulary-tokenizer.ts";
import type { Workload } from "./workload.ts";

export interface PolicyJob {
  workload: Workload;
  policy: string;
  options: Omit<SimulationOptions, "tokenizer" | "onProgress">;
  /** Write progress lines to stderr (a function cannot cross to the thread). */
  progress: boolean;
}

const tokenizer = new VocabularyTokenizer({ memoEntries: 32_768 });

parentPort!.on("message", async (job: PolicyJob) => {
  try {
    const run = await runPolicy(job.workload, job.policy, policyFactory(job.policy), {
      ...job.options, tokenizer, onProgress: job.progress ? (line) => process.stderr.write(line + "\n") : undefined,
    });
    parentPort!.postMessage({ ok: true, run });
  } catch (e) {
    parentPort!.postMessage({ ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
});
