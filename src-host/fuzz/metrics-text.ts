// /metrics page bodies for the fuzzer: clean vLLM pages with known load values (the reference model can score
// them), and damaged ones: NaN, infinite and negative samples, duplicate series, huge pages cut at the gateway's
// 64 KiB in the middle of the families the plugin reads, random bytes and mutations.
import { vllmPage } from "../harness/vllm-page.ts";
import { SeededRandom } from "../util/seeded-random.ts";

export interface PodLoad {
  waiting: number;
  running: number;
  kv: number;
}

/** Higress keeps at most this many bytes of the health-check body. */
export const GATEWAY_METRICS_CUT = 65536;

export function randomLoad(rng: SeededRandom): PodLoad {
  return { waiting: rng.int(40), running: rng.int(64), kv: Math.round(rng.next() * 1000) / 1000 };
}

const BAD_VALUES = ["NaN", "+Inf", "-Inf", "-1", "-0", "1e309", "-1e309", "0x10", "1_000", "", "1e", "--1", "9".repeat(400), "4.9e-324"];
const FAMILIES = ["vllm:num_requests_waiting", "vllm:num_requests_running", "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:num_queue_reqs", "vllm:lora_requests_info", "vllm:cache_config_info"];

/** A /metrics body that may be damaged; at most GATEWAY_METRICS_CUT bytes (the gateway cuts the rest). */
export function fuzzMetricsText(rng: SeededRandom): string {
  const page = vllmPage(randomLoad(rng));
  switch (rng.int(9)) {
    case 0:
      return page;
    case 1:
      return "";
    case 2: {
      // A bad value for a family the plugin reads.
      const family = rng.pick(FAMILIES.slice(0, 4));
      return page.replace(new RegExp(`^(${family}\\{[^}]*\\}) \\S+`, "m"), `$1 ${rng.pick(BAD_VALUES)}`);
    }
    case 3: {
      // Duplicate series with conflicting values, and repeated families.
      const lines = page.split("\n").filter((l) => FAMILIES.some((f) => l.startsWith(f)));
      const extra = lines.map((l) => l.replace(/ \S+$/, " " + rng.pick(["3", "-5", "NaN", "0.5", "1e6"]))).join("\n");
      return page + extra + "\n" + page;
    }
    case 4: {
      // Huge: filler series pushes the families we need past the 64 KiB cut, or the cut lands inside them.
      const fillerLines = rng.range(500, 3000);
      let filler = "";
      for (let i = 0; i < fillerLines; i++) filler += `vllm:filler_metric{engine="0",i="${i}"} ${i}\n`;
      const text = rng.chance(0.5) ? filler + page : page.slice(0, rng.int(page.length)) + filler;
      const cutAt = rng.chance(0.5) ? GATEWAY_METRICS_CUT : rng.int(Math.min(text.length, GATEWAY_METRICS_CUT) + 1);
      return text.slice(0, cutAt);
    }
    case 5: {
      // Cut at a random point (as a truncated health-check body is).
      return page.slice(0, rng.int(page.length + 1));
    }
    case 6: {
      let s = "";
      const n = rng.size(4096);
      for (let i = 0; i < n; i++) s += String.fromCharCode(rng.chance(0.9) ? rng.range(0x20, 0x7e) : rng.range(0, 0xffff));
      return s;
    }
    case 7: {
      // Label garbage: unterminated quotes, escapes, very long label values.
      const long = "x".repeat(rng.size(20000));
      return page
        .replace('model_name="', rng.pick(['model_name="\\', 'model_name="' + long, 'model_name=', 'model_name="\\"', '{{{']))
        .replace("engine=", rng.pick(["engine=", 'engine="\\n",e=', "\n"]));
    }
    default: {
      const chars = page.split("");
      for (let i = rng.range(1, 30); i > 0; i--) chars[rng.int(chars.length)] = rng.pick(["\n", " ", "{", "}", '"', "#", "\\", "\r", "\t", "\u0000", "é"]);
      return chars.join("");
    }
  }
}
