// The demo's HTML report: the settings, the comparison table and the client-side TTFT CDF of both runs as
// inline SVG; one self-contained file.
import { boundsLine, TABLE_COLUMNS } from "./result-table.ts";
import { FLAVOR_NAMES, type DemoResult } from "./run-comparison.ts";
import { cdfChartSvg } from "../report/cdf-chart-svg.ts";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const COLORS: Record<string, string> = { higress: "#1f77b4", envoy: "#2ca02c", "round-robin": "#d62728" };

export function demoReportHtml(result: DemoResult): string {
  const s = result.settings;
  const w = s.workload;
  const table = [
    "<table>",
    `<tr>${TABLE_COLUMNS.map((c) => `<th>${esc(c.title)}</th>`).join("")}</tr>`,
    ...result.runs.map((r) => `<tr>${TABLE_COLUMNS.map((c) => `<td>${esc(c.cell(r))}</td>`).join("")}</tr>`),
    "</table>",
  ].join("\n");
  const ratioLines = Object.entries(result.ratiosByFlavor).map(
    ([flavor, r]) =>
      `Picker (${esc(FLAVOR_NAMES[flavor as keyof typeof FLAVOR_NAMES])}) / round robin: cache hit rate ${r.cacheHitRate.toFixed(2)}×, ` +
      `TTFT p50 ${r.ttftP50.toFixed(2)}×, TTFT p90 ${r.ttftP90.toFixed(2)}×, output tokens/s ${r.outputTokensPerSecond.toFixed(2)}×.`,
  );
  const chart = cdfChartSvg(
    result.runs.map((run) => ({ label: run.label, color: COLORS[run.flavor ?? "round-robin"] ?? "#333", values: run.ttftsMs })),
    { xLabel: "time to first token, ms (client-side, log scale)" },
  );
  const settings = [
    `${s.backends} simulated vLLM backends (KV ${s.engine.kvTokens ?? "default"} tokens each, speed ${s.speed}x)`,
    `gateway: ${s.workers} workers; picker runs with the ${s.flavors.map((f) => FLAVOR_NAMES[f]).join(" and the ")}, no plugin for round robin`,
    `${w.conversations} conversations of ${w.turns[0]}–${w.turns[1]} turns over ${w.systemPromptTokens.length} shared system prompts ` +
      `(${w.systemPromptTokens.join(", ")} tokens); questions ${w.userTokens[0]}–${w.userTokens[1]} tokens, ` +
      `answers ${w.answerTokens[0]}–${w.answerTokens[1]} tokens, think time ${w.thinkSeconds[0]}–${w.thinkSeconds[1]} s (modelled)`,
    `client: openai npm client, streaming, ${s.connections === "session" ? "one keep-alive connection per conversation" : "shared connection pool"}`,
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>KV-aware picker vs round robin</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 4px 10px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
</style>
</head>
<body>
<h1>KV-aware picker vs round robin</h1>
<ul>
${settings.map((line) => `<li>${esc(line)}</li>`).join("\n")}
</ul>
${table}
<p>${ratioLines.join("<br>\n")} Cache hit rate is token-weighted, from the backends' own counters
(sum of <code>vllm:prefix_cache_hits_total</code> / sum of <code>vllm:prefix_cache_queries_total</code>).</p>
<p>${esc(boundsLine(result))}.</p>
<h2>TTFT distribution</h2>
${chart}
</body>
</html>
`;
}
