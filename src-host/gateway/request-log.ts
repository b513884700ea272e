// The access log: one greppable `gw req key=value ...` line per request, written when the request is over.

export interface RequestRecord {
  id: number;
  /** Worker (VM) index the connection is pinned to; null without a plugin. */
  worker: number | null;
  method: string;
  path: string;
  /** Status sent downstream; 0 when none was (reset before a response). */
  status: number;
  /**
   * Envoy response flags: "-" none, "LR" local reply (plugin, 413, failure policy), "UH" no upstream host,
   * "UF" upstream connection failure, "UT" route (request) timeout, "SI" stream idle timeout, "UC" upstream connection lost
   * once open (before or after the response started),
   * "DC" downstream (client) abort, "RST" stream reset by the plugin, "GW" gateway internal error.
   */
  flags: string;
  /** Envoy's response code details (%RESPONSE_CODE_DETAILS%: "via_upstream", "upstream_reset_before_response_started{…}",
   *  a local reply's details), null when none were set. */
  details: string | null;
  endpoint: string | null;
  route: string | null;
  /** The plugin's fail-open reason (the `endpoint_picker.fallback` stream property), if it set one. */
  fallback: string | null;
  /** Request start to the first response body byte written downstream; null when none was. */
  ttftMs: number | null;
  durMs: number;
  bytesIn: number;
  bytesOut: number;
}

/** Keeps each value one space-free token (whitespace is %-escaped); a value's own '=' is harmless. */
function token(v: string | number | null): string {
  if (v === null || v === "") return "-";
  return String(v).replace(/\s/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase()}`);
}

function ms(v: number | null): string {
  return v === null ? "-" : v.toFixed(1);
}

export function formatRequestLine(r: RequestRecord): string {
  return [
    "gw req",
    `id=${r.id}`,
    `worker=${r.worker === null ? "-" : r.worker}`,
    `method=${token(r.method)}`,
    `path=${token(r.path)}`,
    `status=${r.status}`,
    `flags=${token(r.flags)}`,
    `details=${token(r.details)}`,
    `endpoint=${token(r.endpoint)}`,
    `route=${token(r.route)}`,
    `fallback=${token(r.fallback)}`,
    `ttft_ms=${ms(r.ttftMs)}`,
    `dur_ms=${ms(r.durMs)}`,
    `bytes_in=${r.bytesIn}`,
    `bytes_out=${r.bytesOut}`,
  ].join(" ");
}

/** Parses a `gw req` line back into its fields (for tests and log tooling). */
export function parseRequestLine(line: string): Record<string, string> | null {
  if (!line.startsWith("gw req ")) return null;
  const out: Record<string, string> = {};
  for (const part of line.slice(7).split(" ")) {
    const i = part.indexOf("=");
    if (i > 0) out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}
