// Runs several policies over the same workload, each on fresh pods with the same arrivals and content.
import { DEFAULT_POLICIES, policyFactory } from "./policies/registry.ts";
import { runPolicy, type PolicyRun, type SimulationOptions } from "./simulation.ts";
import { VocabularyTokenizer } from "./vocabulary-tokenizer.ts";
import type { Workload } from "./workload.ts";

export interface SimResult {
  workload: string;
  policies: Record<string, PolicyRun["summary"]>;
  runs: PolicyRun[];
}

export async function runPolicies(
  workload: Workload,
  policies: readonly string[] = DEFAULT_POLICIES,
  options: Partial<SimulationOptions> = {},
  onDone?: (run: PolicyRun) => void,
): Promise<SimResult> {
  const factories = policies.map((name) => [name, policyFactory(name)] as const);
  const tokenizer = options.tokenizer ?? new VocabularyTokenizer({ memoEntries: 32_768 });
  const runs: PolicyRun[] = [];
  for (const [name, factory] of factories) {
    const run = await runPolicy(workload, name, factory, { ...options, tokenizer });
    runs.push(run);
    onDone?.(run);
  }
  const summaries: Record<string, PolicyRun["summary"]> = {};
  for (const r of runs) summaries[r.policy] = r.summary;
  return { workload: workload.name, policies: summaries, runs };
}
