// Reads the plugin's x-endpoint-picker-debug response header back into per-endpoint scores, so a decision made
// inside the plugin can be compared with the reference model.
export interface EndpointScores {
  t: number;
  q: number;
  kv: number;
  p: number;
  i: number;
  /** Leading chunks of the chain the picker believed the endpoint holds. */
  m: number;
  guarded: boolean;
}

export interface DebugScores {
  endpoint: string;
  chain: number;
  matched: number;
  scores: Map<string, EndpointScores | "excluded">;
}

export function parseDebugHeader(value: string): DebugScores | null {
  const m = /^endpoint=([^;]*); chain=(\d+); matched=(\d+); scores=(.*)$/.exec(value);
  if (!m) return null;
  const scores: DebugScores["scores"] = new Map();
  for (const part of m[4].match(/[^,{]+\{[^}]*\}/g) ?? []) {
    const [, addr, body] = /^([^{]+)\{([^}]*)\}$/.exec(part)!;
    if (body === "excluded") {
      scores.set(addr, "excluded");
      continue;
    }
    const field = (k: string) => Number(new RegExp(`(?:^| )${k}=(-?[\\d.]+)`).exec(body)?.[1] ?? NaN);
    scores.set(addr, {
      t: field("t"), q: field("q"), kv: field("kv"), p: field("p"), i: field("i"), m: field("m"), guarded: body.includes("guarded"),
    });
  }
  return { endpoint: m[1], chain: Number(m[2]), matched: Number(m[3]), scores };
}
