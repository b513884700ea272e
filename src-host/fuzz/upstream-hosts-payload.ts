// proxy_get_upstream_hosts answers for the fuzzer: the serialized map of ["ip:port", "{json}"] pairs that Higress
// returns, with damaged pair encodings, bad JSON, missing fields, wrong types, bad health names, duplicate
// addresses and fuzzed /metrics text; and an oracle that lists the hosts a correct reader may route to.
import { serializeHeaderMap } from "../host/header-map.ts";
import { fuzzMetricsText, randomLoad, type PodLoad } from "./metrics-text.ts";
import { vllmPage } from "../harness/vllm-page.ts";
import { SeededRandom } from "../util/seeded-random.ts";

const dec = new TextDecoder();

export interface CleanHost {
  address: string;
  health: "Healthy" | "Degraded" | "Unhealthy" | "Timeout";
  load: PodLoad;
}

export interface HostsPayload {
  bytes: Uint8Array;
  /** Set when every host is well-formed with a clean vLLM page: the reference model can score the decision. */
  clean: CleanHost[] | null;
}

const HEALTH = ["Healthy", "Degraded", "Unhealthy", "Timeout", "Draining", "HEALTHY", "healthy ", "", "Unknown", "\\u0048ealthy"];

function address(rng: SeededRandom): string {
  switch (rng.int(10)) {
    case 0: return "";
    case 1: return "10.0.0." + rng.int(300) + ":" + rng.int(70000);
    case 2: return "[fd00::" + rng.int(99) + "]:8000";
    case 3: return "x".repeat(rng.range(60, 200)) + ":1";
    case 4: return "10.0.0.1:8000 ";
    case 5: return "ü.example:80";
    case 6: return "a\u0000b:1";
    default: return "10.0.0." + rng.int(12) + ":8000";
  }
}

function metadata(rng: SeededRandom): string {
  const metrics = fuzzMetricsText(rng);
  const health = rng.pick(HEALTH);
  switch (rng.int(12)) {
    case 0: return JSON.stringify({ metrics });
    case 1: return JSON.stringify({ health_status: health });
    case 2: return JSON.stringify({ health_status: rng.pick([1, true, null, [], {}]), metrics });
    case 3: return JSON.stringify({ health_status: health, metrics: rng.pick([1, false, null, ["a"], { m: 1 }]) });
    case 4: return `{"health_status":"${health}","metrics":${JSON.stringify(metrics)},"health_status":"Unhealthy"}`;
    case 5: return `{"health_status":"Unhealthy","health_status":"${health}","metrics":${JSON.stringify(metrics)}}`;
    case 6: return JSON.stringify({ health_status: health, metrics }).slice(0, rng.int(200));
    case 7: return rng.pick(["", "null", "[]", "{", "}", '"x"', "{}", '{"health_status":"Healthy"', "{'health_status':'Healthy'}"]);
    case 8: return JSON.stringify({ health_status: health, metrics, extra: { nested: [[[{ a: 1 }]]] }, weight: 1e308 });
    case 9: return `{"health_status":"${health}","metrics":"${"\\u00e9".repeat(rng.size(30000))}"}`;
    default: return JSON.stringify({ health_status: health, metrics });
  }
}

function mutateEncoding(rng: SeededRandom, b: Uint8Array): Uint8Array {
  const out = b.slice();
  const view = new DataView(out.buffer);
  switch (rng.int(6)) {
    case 0: return out.subarray(0, rng.int(out.length));
    case 1: if (out.length >= 4) view.setUint32(0, rng.pick([0, 1, 0xffffffff, view.getUint32(0, true) + 1, 0x20000000]), true); return out;
    case 2: {
      const pairs = out.length >= 4 ? view.getUint32(0, true) : 0;
      if (pairs > 0 && out.length >= 4 + pairs * 8) view.setUint32(4 + rng.int(pairs * 2) * 4, rng.pick([0, 0xffffffff, 0x7fffffff, rng.int(1000)]), true);
      return out;
    }
    case 3: {
      const tail = new Uint8Array(out.length + rng.range(1, 64));
      tail.set(out);
      return tail;
    }
    case 4: if (out.length > 0) out[rng.int(out.length)] ^= 1 << rng.int(8); return out;
    default: return new SeededRandom(rng.u32()).bytes(rng.size(256));
  }
}

export function cleanHosts(rng: SeededRandom, n: number): CleanHost[] {
  const health: CleanHost["health"][] = ["Healthy", "Healthy", "Healthy", "Degraded", "Unhealthy", "Timeout"];
  return Array.from({ length: n }, (_, i) => ({ address: `10.1.0.${i + 1}:8000`, health: rng.pick(health), load: randomLoad(rng) }));
}

export function cleanPayload(hosts: CleanHost[]): Uint8Array {
  return serializeHeaderMap(hosts.map((h) => [h.address, JSON.stringify({ health_status: h.health, metrics: vllmPage(h.load) })]));
}

export function generateHostsPayload(rng: SeededRandom): HostsPayload {
  if (rng.chance(0.35)) {
    const clean = cleanHosts(rng, rng.range(1, 8));
    return { bytes: cleanPayload(clean), clean };
  }
  const n = rng.chance(0.1) ? rng.range(60, 80) : rng.size(12);
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < n; i++) {
    if (i > 0 && rng.chance(0.1)) pairs.push([pairs[rng.int(pairs.length)][0], metadata(rng)]);
    else pairs.push([address(rng), metadata(rng)]);
  }
  let bytes = serializeHeaderMap(pairs);
  if (rng.chance(0.3)) bytes = mutateEncoding(rng, bytes);
  return { bytes, clean: null };
}

const PRINTABLE_ADDRESS = /^[\x21-\x7e]{1,64}$/;

/**
 * The addresses a correct reader may route to: pairs of a well-formed map (count and lengths within the bytes),
 * among the first maxHosts, with a printable address of at most 64 bytes seen for the first time, and metadata
 * that is a JSON object whose health_status (last one wins) is exactly "Healthy" (Higress's ai-load-balancer rule).
 * null when the map itself is malformed (the plugin must then fail open).
 */
export function routableAddresses(bytes: Uint8Array, maxHosts: number): Set<string> | null {
  if (bytes.length < 4) return bytes.length <= 1 ? new Set() : null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(0, true);
  if (4 + count * 8 > bytes.length) return null;
  let cursor = 4 + count * 8;
  const seen = new Set<string>();
  const out = new Set<string>();
  for (let i = 0; i < count; i++) {
    const kl = view.getUint32(4 + i * 8, true);
    const vl = view.getUint32(8 + i * 8, true);
    if (cursor + kl + vl + 2 > bytes.length) return null;
    const keyBytes = bytes.subarray(cursor, cursor + kl);
    const value = dec.decode(bytes.subarray(cursor + kl + 1, cursor + kl + 1 + vl));
    cursor += kl + vl + 2;
    if (i >= maxHosts) continue;
    const key = Buffer.from(keyBytes).toString("latin1");
    if (!PRINTABLE_ADDRESS.test(key) || seen.has(key)) continue;
    seen.add(key);
    let meta: unknown;
    try {
      meta = JSON.parse(value);
    } catch {
      continue;
    }
    if (!meta || typeof meta !== "object" || Array.isArray(meta)) continue;
    const health = (meta as Record<string, unknown>).health_status;
    if (health === "Healthy") out.add(key);
  }
  return out;
}
