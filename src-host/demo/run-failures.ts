// What makes a demo run a failure, so `npm start` exits 1 instead of printing a table of errors as a result:
// a request that failed, or scripted requests never sent (a conversation stops at its first failed turn).
import type { DemoResult } from "./run-comparison.ts";

/** One line per failed run; empty when every run sent and completed every scripted request. */
export function runFailures(result: Pick<DemoResult, "runs" | "totalRequests">): string[] {
  const lines: string[] = [];
  for (const r of result.runs) {
    const s = r.summary;
    if (s.errors === 0 && s.requests === result.totalRequests) continue;
    const why = s.errorMessages.length > 0 ? ` (${s.errorMessages.join("; ")})` : "";
    lines.push(`${r.label}: ${s.errors} of ${s.requests} requests failed, ${result.totalRequests - s.requests} of ${result.totalRequests} never sent${why}`);
  }
  return lines;
}
