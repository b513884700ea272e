// A self-contained HTML report with inline SVG: TTFT CDF per policy and token hit rate over time.
import { cdfChartSvg, escapeXml as esc } from "../report/cdf-chart-svg.ts";
import type { SimResult } from "./run-policies.ts";

const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const W = 640;
const H = 360;
const M = { left: 56, right: 150, top: 20, bottom: 40 };

interface Series {
  name: string;
  points: Array<[number, number]>;
}

function chart(title: string, xLabel: string, yLabel: string, series: Series[], yMax?: number): string {
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = series.flatMap((s) => s.points.map((p) => p[1]));
  const x1 = Math.max(1e-9, ...xs);
  const y1 = yMax ?? Math.max(1e-9, ...ys);
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const sx = (x: number) => M.left + (x / x1) * pw;
  const sy = (y: number) => M.top + ph - (y / y1) * ph;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`);
  parts.push(`<text x="${M.left}" y="14" font-size="13" font-weight="bold">${esc(title)}</text>`);
  parts.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`);
  for (let i = 0; i <= 4; i++) {
    const xv = (x1 * i) / 4;
    const yv = (y1 * i) / 4;
    parts.push(`<text x="${sx(xv)}" y="${H - M.bottom + 14}" text-anchor="middle">${fmt(xv)}</text>`);
    parts.push(`<text x="${M.left - 4}" y="${sy(yv) + 4}" text-anchor="end">${fmt(yv)}</text>`);
    parts.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${sy(yv)}" y2="${sy(yv)}" stroke="#eee"/>`);
  }
  parts.push(`<text x="${M.left + pw / 2}" y="${H - 6}" text-anchor="middle">${esc(xLabel)}</text>`);
  parts.push(`<text x="12" y="${M.top + ph / 2}" transform="rotate(-90 12 ${M.top + ph / 2})" text-anchor="middle">${esc(yLabel)}</text>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const d = s.points.map((p, k) => `${k === 0 ? "M" : "L"}${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join("");
    if (d) parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="1.6"/>`);
    const ly = M.top + 12 + i * 16;
    parts.push(`<line x1="${W - M.right + 10}" x2="${W - M.right + 28}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="3"/>`);
    parts.push(`<text x="${W - M.right + 32}" y="${ly}">${esc(s.name)}</text>`);
  });
  parts.push("</svg>");
  return parts.join("");
}

function fmt(v: number): string {
  if (v === 0) return "0";
  if (Math.abs(v) >= 100) return v.toFixed(0);
  if (Math.abs(v) >= 1) return v.toFixed(1);
  return v.toFixed(2);
}

export function htmlReport(result: SimResult, title = `Simulation: ${result.workload}`): string {
  const cdf = cdfChartSvg(
    result.runs.map((r, i) => ({ label: r.policy, color: COLORS[i % COLORS.length], values: r.ttftCdf })),
    { width: W, height: H, xLabel: "TTFT (s, log scale)" },
  );
  const hit: Series[] = result.runs.map((r) => ({
    name: r.policy,
    points: r.timeline.filter((p) => p.requests > 0).map((p) => [p.t_s, p.hit_rate] as [number, number]),
  }));
  const rows = result.runs
    .map((r) => {
      const s = r.summary;
      const cells = [
        r.policy, s.requests, s.failed, s.ttft_mean_s.toFixed(3), s.ttft_p50_s.toFixed(3), s.ttft_p90_s.toFixed(3),
        s.ttft_p99_s.toFixed(3), s.e2e_p50_s.toFixed(3), (s.token_hit_rate * 100).toFixed(1) + "%", s.output_tok_s.toFixed(0),
        s.queue_max, s.queue_mean.toFixed(2),
      ];
      return `<tr>${cells.map((c) => `<td>${esc(String(c))}</td>`).join("")}</tr>`;
    })
    .join("\n");
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>body{font-family:sans-serif;margin:24px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child{text-align:left}</style>
</head><body>
<h1>${esc(title)}</h1>
<table><tr><th>policy</th><th>requests</th><th>failed</th><th>TTFT mean s</th><th>p50</th><th>p90</th><th>p99</th><th>e2e p50 s</th><th>token hit rate</th><th>output tok/s</th><th>queue max</th><th>queue mean</th></tr>
${rows}
</table>
<h2>TTFT CDF</h2>
${cdf}
<h2>Token hit rate over time</h2>
${chart("Prompt tokens served from cache", "time (s)", "hit rate", hit, 1)}
</body></html>
`;
}
