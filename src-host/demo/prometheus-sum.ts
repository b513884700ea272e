// Reads one metric out of Prometheus text exposition: the sum of every series with that exact name.

/** Sum over all label sets of `name` (e.g. "vllm:prefix_cache_hits_total"); 0 when absent. */
export function sumSeries(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.length === 0 || line[0] === "#" || !line.startsWith(name)) continue;
    const next = line[name.length];
    if (next !== " " && next !== "{") continue;
    // The value follows the name or the closing brace of the labels (label values may contain spaces).
    const rest = next === "{" ? line.slice(line.indexOf("}", name.length) + 1) : line.slice(name.length);
    const value = Number(rest.trim().split(/\s+/)[0]);
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}
