// Decision cost: every plugin callback the gateway runs for one chat request (through our host, the release
// build, 8 healthy endpoints with vLLM metrics, a warm prefix index), against V8's JSON.parse of the same body,
// measured side by side in interleaved rounds. Two baselines built like the plugin show the host's share: a
// plugin whose callbacks are empty, and one that only copies the body into linear memory.
import { BenchGateway } from "./bench-gateway.ts";
import { readBuiltPlugin } from "../wasm/built-plugin.ts";
import { chatBody, type ChatBody } from "./chat-body.ts";
import { compileAs } from "../wasm/compile-as.ts";
import { BASELINE_PLUGIN_ENTRY } from "../wasm/guest-entries.ts";
import { interleavedRounds, median, medianRatio, type Contender } from "./interleaved-rounds.ts";
import { configForEndpoints } from "./stage-profile.ts";

export interface DecisionCostOptions {
  sizes: number[];
  rounds: number;
  targetMs: number;
  /** Bodies per size that share all but the final question; requests cycle through them. */
  variants: number;
  /** A second endpoint count, measured on the smallest body next to the default 8. */
  manyEndpoints: number;
  /** A body of this size written in Chinese (three bytes a character), measured in its own rounds; 0: none. */
  chineseBodyBytes: number;
}

export interface DecisionCostRow {
  bodyBytes: number;
  /** Median over rounds of (all plugin callbacks) / JSON.parse(body string). */
  ratioToJsonParse: number;
  /** The same against JSON.parse(new TextDecoder().decode(bodyBytes)), the bytes a gateway actually has. */
  ratioToJsonParseWithDecode: number;
  /** Median over rounds of (picker - body-copy plugin) / JSON.parse: the plugin's own share. */
  pluginOwnRatioToJsonParse: number;
  /** Median over rounds of (the empty plugin's callbacks) / JSON.parse: what the host alone costs. */
  hostOverheadRatioToJsonParse: number;
  /** Machine-specific medians, microseconds per request. */
  us: {
    picker: number;
    jsonParse: number;
    jsonParseWithDecode: number;
    hostEmptyPlugin: number;
    hostBodyCopyPlugin: number;
    /** Median over rounds of picker - hostBodyCopyPlugin: what the picker itself adds once the body is in its memory. */
    pluginOwn: number;
  };
  iterationsPerRound: Record<string, number>;
  /** Picker requests in the rounds, all of which must have produced a decision. */
  decisions: number;
  /** Share of those requests whose chain matched some endpoint. */
  prefixHitRate: number;
  /** Host calls the picker made per warm request (mean), by import name (each crosses from wasm into the host). */
  hostCallsPerRequest: Record<string, number>;
}

export interface DecisionCostResult {
  endpoints: number;
  rounds: number;
  rows: DecisionCostRow[];
  /**
   * Extra cost of a request that first re-reads the hosts and parses every endpoint's /metrics text (a worker
   * does this once per metrics.snapshotTtlMs, not per request), machine-specific microseconds, smallest body.
   */
  snapshotRefreshUs: number;
  /** The Chinese body: picker, body-copy plugin and JSON.parse of it in their own interleaved rounds. */
  chineseBody?: {
    bodyBytes: number;
    /** Median over rounds of (picker - body-copy plugin) / JSON.parse. */
    pluginOwnRatioToJsonParse: number;
    ratioToJsonParse: number;
    us: { picker: number; jsonParse: number; pluginOwn: number };
  };
  /** The smallest body with more endpoints (picker and body-copy plugin on that many), in the same rounds. */
  manyEndpoints?: {
    endpoints: number;
    /** Median over rounds of plugin's own cost with `endpoints` / with the default endpoints. */
    pluginOwnRatio: number;
    pickerUs: number;
    pluginOwnUs: number;
  };
}

/** The request's every callback, cycling through the bodies; counts what it sent. */
function requestContender(name: string, gateway: BenchGateway, bodies: ChatBody[], beforeEach?: () => void) {
  let next = 0;
  const contender = {
    name,
    sent: 0,
    run(iterations: number) {
      for (let i = 0; i < iterations; i++) {
        beforeEach?.();
        gateway.request(bodies[next++ % bodies.length].bytes);
      }
      contender.sent += iterations;
    },
  };
  return contender;
}

let sink: unknown = null;

/** V8's JSON.parse of each body's text in turn. */
function jsonParseContender(bodies: ChatBody[]): Contender {
  return {
    name: "jsonParse",
    run(n) {
      for (let i = 0; i < n; i++) sink = JSON.parse(bodies[i % bodies.length].text);
    },
  };
}

export async function decisionCost(options: DecisionCostOptions): Promise<DecisionCostResult> {
  const picker = new BenchGateway(readBuiltPlugin("higress"), "{}");
  const baselineWasm = new WebAssembly.Module((await compileAs(BASELINE_PLUGIN_ENTRY, "release")) as Uint8Array<ArrayBuffer>);
  const emptyPlugin = new BenchGateway(baselineWasm, "", "bench_baseline");
  const bodyCopyPlugin = new BenchGateway(baselineWasm, "read-body", "bench_baseline");
  // A second picker that only counts host calls, so the timed one carries no counting hook.
  const counting = new BenchGateway(picker.host.module, "{}", undefined, true);
  const decoder = new TextDecoder();
  const rows: DecisionCostRow[] = [];
  let snapshotRefreshUs = NaN;
  let manyEndpoints: DecisionCostResult["manyEndpoints"];
  const manyPicker = new BenchGateway(picker.host.module, configForEndpoints(options.manyEndpoints), undefined, false, { endpoints: options.manyEndpoints });
  const manyBodyCopy = new BenchGateway(baselineWasm, "read-body", "bench_baseline", false, { endpoints: options.manyEndpoints });

  for (const [sizeIndex, size] of options.sizes.entries()) {
    const bodies = Array.from({ length: options.variants }, (_, v) => chatBody(size, v));
    // Warm the index: every variant once, then once more so the second pass matches the first.
    for (let pass = 0; pass < 2; pass++) {
      for (const body of bodies) {
        const stream = picker.request(body.bytes);
        if (stream.overrideHost === null) {
          throw new Error(`the picker made no decision for a ${size}-byte body: ${picker.warnings.join(" | ") || "no warning logged"}`);
        }
      }
    }
    for (const body of [...bodies, ...bodies]) counting.request(body.bytes);
    counting.hostCalls.clear();
    const counted = 4 * bodies.length;
    for (let i = 0; i < counted; i++) counting.request(bodies[i % bodies.length].bytes);
    const hostCallsPerRequest = Object.fromEntries([...counting.hostCalls].sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, n / counted]));
    const decisionsBefore = picker.counter("decisions");
    const hitsBefore = picker.counter("prefix_hits");
    const pickerRun = requestContender("picker", picker, bodies);
    const contenders: Contender[] = [
      pickerRun,
      jsonParseContender(bodies),
      {
        name: "jsonParseWithDecode",
        run(n) {
          for (let i = 0; i < n; i++) sink = JSON.parse(decoder.decode(bodies[i % bodies.length].bytes));
        },
      },
      requestContender("hostEmptyPlugin", emptyPlugin, bodies),
      requestContender("hostBodyCopyPlugin", bodyCopyPlugin, bodies),
    ];
    // The snapshot refresh is measured once, on the smallest body, where it shows most.
    const refreshing = sizeIndex === 0 ? requestContender("pickerSnapshotRefresh", picker, bodies, () => picker.clock.advanceTo(picker.clock.nowMs() + 1000)) : null;
    if (refreshing) contenders.push(refreshing);
    if (sizeIndex === 0) {
      for (const body of [...bodies, ...bodies]) {
        if (manyPicker.request(body.bytes).overrideHost === null) throw new Error(`no decision with ${options.manyEndpoints} endpoints: ${manyPicker.warnings.join(" | ")}`);
      }
      contenders.push(requestContender("pickerManyEndpoints", manyPicker, bodies), requestContender("bodyCopyManyEndpoints", manyBodyCopy, bodies));
    }

    const result = interleavedRounds(contenders, { rounds: options.rounds, targetMs: options.targetMs, minIterations: 2 });
    const sent = pickerRun.sent + (refreshing?.sent ?? 0);
    const decisions = picker.counter("decisions") - decisionsBefore;
    if (decisions !== sent) {
      throw new Error(`${sent} picker requests of ${size} bytes made ${decisions} decisions: ${picker.warnings.join(" | ")}`);
    }
    const s = result.samplesUs;
    const us = result.medianUs;
    if (refreshing) snapshotRefreshUs = us.pickerSnapshotRefresh - us.picker;
    if (sizeIndex === 0) {
      const own = s.picker.map((v, r) => v - s.hostBodyCopyPlugin[r]);
      const manyOwn = s.pickerManyEndpoints.map((v, r) => v - s.bodyCopyManyEndpoints[r]);
      manyEndpoints = {
        endpoints: options.manyEndpoints,
        pluginOwnRatio: medianRatio(manyOwn, own),
        pickerUs: us.pickerManyEndpoints,
        pluginOwnUs: median(manyOwn),
      };
    }
    // Paired by round, as the ratios are: a difference of two medians taken apart goes wrong (even negative) when
    // the machine's load shifts between the rounds that set each median.
    const ownPerRound = s.picker.map((v, r) => v - s.hostBodyCopyPlugin[r]);
    rows.push({
      bodyBytes: size,
      ratioToJsonParse: medianRatio(s.picker, s.jsonParse),
      ratioToJsonParseWithDecode: medianRatio(s.picker, s.jsonParseWithDecode),
      pluginOwnRatioToJsonParse: medianRatio(ownPerRound, s.jsonParse),
      hostOverheadRatioToJsonParse: medianRatio(s.hostEmptyPlugin, s.jsonParse),
      us: {
        picker: us.picker,
        jsonParse: us.jsonParse,
        jsonParseWithDecode: us.jsonParseWithDecode,
        hostEmptyPlugin: us.hostEmptyPlugin,
        hostBodyCopyPlugin: us.hostBodyCopyPlugin,
        pluginOwn: median(ownPerRound),
      },
      iterationsPerRound: result.iterations,
      decisions,
      prefixHitRate: (picker.counter("prefix_hits") - hitsBefore) / decisions,
      hostCallsPerRequest,
    });
  }
  const chineseBody = options.chineseBodyBytes > 0 ? chineseBodyCost(picker, bodyCopyPlugin, options) : undefined;
  for (const g of [picker, counting, emptyPlugin, bodyCopyPlugin, manyPicker, manyBodyCopy]) g.host.close();
  sink = null;
  return { endpoints: picker.cluster.hostList.length, rounds: options.rounds, rows, snapshotRefreshUs, chineseBody, manyEndpoints };
}

/** Chinese prose decodes three bytes a character: the multibyte path of the scanner and the chunker, side by side. */
function chineseBodyCost(picker: BenchGateway, bodyCopyPlugin: BenchGateway, options: DecisionCostOptions): DecisionCostResult["chineseBody"] {
  const size = options.chineseBodyBytes;
  const bodies = Array.from({ length: options.variants }, (_, v) => chatBody(size, v, 1, "chinese"));
  for (let pass = 0; pass < 2; pass++) {
    for (const body of bodies) {
      if (picker.request(body.bytes).overrideHost === null) throw new Error(`the picker made no decision for a ${size}-byte Chinese body: ${picker.warnings.join(" | ")}`);
    }
  }
  const result = interleavedRounds(
    [
      requestContender("picker", picker, bodies),
      requestContender("hostBodyCopyPlugin", bodyCopyPlugin, bodies),
      jsonParseContender(bodies),
    ],
    { rounds: options.rounds, targetMs: options.targetMs, minIterations: 2 },
  );
  const s = result.samplesUs;
  const own = s.picker.map((v, r) => v - s.hostBodyCopyPlugin[r]);
  return {
    bodyBytes: size,
    pluginOwnRatioToJsonParse: medianRatio(own, s.jsonParse),
    ratioToJsonParse: medianRatio(s.picker, s.jsonParse),
    us: { picker: result.medianUs.picker, jsonParse: result.medianUs.jsonParse, pluginOwn: median(own) },
  };
}
