// An inline SVG chart of empirical CDFs (one step line per series) on a logarithmic x axis, no libraries; the
// demo and the simulator reports draw their TTFT distributions with it.

export interface CdfSeries {
  label: string;
  color: string;
  /** Ascending values. */
  values: readonly number[];
}

export interface CdfChartOptions {
  width?: number;
  height?: number;
  xLabel?: string;
}

/** Text and attribute values escaped for XML/HTML. */
export const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const esc = escapeXml;

/** Tick values 1, 2, 5 × 10^k covering [lo, hi]. */
export function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo && v <= hi) ticks.push(v);
    }
  }
  return ticks;
}

export function cdfChartSvg(series: readonly CdfSeries[], opts: CdfChartOptions = {}): string {
  const width = opts.width ?? 720;
  const height = opts.height ?? 360;
  const m = { left: 56, right: 16, top: 16, bottom: 48 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const all = series.flatMap((s) => s.values.filter((v) => v > 0));
  const lo = all.length ? 10 ** Math.floor(Math.log10(Math.min(...all))) : 1;
  const hi = all.length ? 10 ** Math.ceil(Math.log10(Math.max(...all))) : 10;
  const span = Math.max(1e-9, Math.log10(hi) - Math.log10(lo));
  const x = (v: number) => m.left + (plotW * (Math.log10(Math.max(v, lo)) - Math.log10(lo))) / span;
  const y = (p: number) => m.top + plotH * (1 - p);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect x="${m.left}" y="${m.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
  ];
  for (const t of logTicks(lo, hi)) {
    const tx = x(t).toFixed(1);
    parts.push(`<line x1="${tx}" y1="${m.top}" x2="${tx}" y2="${m.top + plotH}" stroke="#eee"/>`);
    parts.push(`<text x="${tx}" y="${m.top + plotH + 16}" text-anchor="middle">${t}</text>`);
  }
  for (const p of [0, 0.25, 0.5, 0.75, 0.9, 1]) {
    const ty = y(p).toFixed(1);
    parts.push(`<line x1="${m.left}" y1="${ty}" x2="${m.left + plotW}" y2="${ty}" stroke="#eee"/>`);
    parts.push(`<text x="${m.left - 6}" y="${ty}" text-anchor="end" dominant-baseline="middle">${p}</text>`);
  }
  parts.push(`<text x="${m.left + plotW / 2}" y="${height - 8}" text-anchor="middle">${esc(opts.xLabel ?? "")}</text>`);
  series.forEach((s, i) => {
    const n = s.values.length;
    if (n > 0) {
      // Step function: the CDF jumps to (k+1)/n at the k-th smallest value.
      let d = `M${x(s.values[0]).toFixed(1)},${y(0).toFixed(1)}`;
      for (let k = 0; k < n; k++) {
        const vx = x(s.values[k]).toFixed(1);
        d += ` L${vx},${y(k / n).toFixed(1)} L${vx},${y((k + 1) / n).toFixed(1)}`;
      }
      parts.push(`<path d="${d}" fill="none" stroke="${esc(s.color)}" stroke-width="2"/>`);
    }
    const ly = m.top + 16 + i * 18;
    parts.push(`<line x1="${m.left + plotW - 170}" y1="${ly}" x2="${m.left + plotW - 150}" y2="${ly}" stroke="${esc(s.color)}" stroke-width="3"/>`);
    parts.push(`<text x="${m.left + plotW - 144}" y="${ly}" dominant-baseline="middle">${esc(s.label)} (n=${n})</text>`);
  });
  parts.push("</svg>");
  return parts.join("\n");
}
