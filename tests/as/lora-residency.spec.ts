import { PrometheusParser } from "../../assembly/endpoints/prometheus";
import { AdapterState, EndpointMetrics } from "../../assembly/endpoints/endpoint-metrics";
import { hashNameString } from "../../assembly/endpoints/name-hash";
import { KEPT_LORA_SERIES } from "../../assembly/endpoints/lora-residency";

const parser = new PrometheusParser();
const metrics = new EndpointMetrics();

function parse(text: string, truncated: bool = false): bool {
  const buf = String.UTF8.encode(text);
  return parser.parse(changetype<usize>(buf), <usize>buf.byteLength, truncated, metrics, 1 << 20);
}

function state(name: string): i32 {
  return metrics.isAdapterLoaded(hashNameString(name));
}

function series(maxLora: i32, running: string, waiting: string, stamp: f64): string {
  return 'vllm:lora_requests_info{max_lora="' + maxLora.toString() + '",running_lora_adapters="' + running +
    '",waiting_lora_adapters="' + waiting + '"} ' + stamp.toString() + "\n";
}

describe("adapters likely still loaded (lora_requests_info series by stamp)", () => {
  it("takes the running adapters of the series stamped last, newest first, up to max_lora with those busy now", () => {
    // Out of stamp order: vLLM restamps an old label set where it stands.
    const page =
      series(4, "e", "", 1000) +
      series(4, "b,c", "", 1004) +
      series(4, "a", "w", 1006) + // newest: a runs, w waits
      series(4, "d", "", 1003) +
      series(4, "c", "", 1005) +
      series(4, "f", "", 1001);
    expect<bool>(parse(page)).toBe(true);
    expect<i32>(state("a")).toBe(AdapterState.Running);
    expect<i32>(state("w")).toBe(AdapterState.Waiting);
    // a and w take two of four slots: c (1005), then b (1004) fill the other two.
    expect<i32>(metrics.residentAdapters.count).toBe(2);
    expect<i32>(state("c")).toBe(AdapterState.Resident);
    expect<i32>(state("b")).toBe(AdapterState.Resident);
    expect<i32>(state("d")).toBe(AdapterState.NotLoaded);
    expect<i32>(state("e")).toBe(AdapterState.NotLoaded);
    expect<i32>(state("f")).toBe(AdapterState.NotLoaded);
  });

  it("finds the newest series among hundreds, whatever their order", () => {
    let page = "";
    // 300 series of adapters x0..x299, stamps shuffled by a stride coprime with 300; x299's series is stamped last.
    for (let i = 0; i < 300; i++) {
      const k = (i * 7) % 300;
      page += series(3, "x" + k.toString(), "", 5000 + <f64>k);
    }
    expect<bool>(parse(page)).toBe(true);
    expect<i32>(state("x299")).toBe(AdapterState.Running);
    expect<i32>(state("x298")).toBe(AdapterState.Resident);
    expect<i32>(state("x297")).toBe(AdapterState.Resident);
    expect<i32>(state("x296")).toBe(AdapterState.NotLoaded);
    expect<i32>(state("x0")).toBe(AdapterState.NotLoaded);
    expect<i32>(metrics.residentAdapters.count).toBe(2);
  });

  it("keeps only the newest series: an adapter past them is not counted", () => {
    // Each older series repeats the newest's adapter, so only a series past the kept ones names another adapter.
    let page = series(2, "z", "", 1);
    for (let i = 0; i < KEPT_LORA_SERIES; i++) page += series(2, i % 2 == 0 ? "y" : "y,y ", "", 100 + <f64>i);
    expect<bool>(parse(page)).toBe(true);
    expect<i32>(state("y")).toBe(AdapterState.Running);
    expect<i32>(state("z")).toBe(AdapterState.NotLoaded);
    // With one series fewer, z's is kept.
    page = series(2, "z", "", 1);
    for (let i = 0; i < KEPT_LORA_SERIES - 1; i++) page += series(2, i % 2 == 0 ? "y" : "y,y ", "", 100 + <f64>i);
    expect<bool>(parse(page)).toBe(true);
    expect<i32>(state("z")).toBe(AdapterState.Resident);
  });

  it("counts nothing resident when the busy adapters fill max_lora, or max_lora is unknown", () => {
    expect<bool>(parse(series(2, "a", "b", 10) + series(2, "c", "", 9))).toBe(true);
    expect<i32>(metrics.residentAdapters.count).toBe(0);
    expect<i32>(state("c")).toBe(AdapterState.NotLoaded);
    // An adapter both running and waiting takes one slot.
    expect<bool>(parse(series(2, "a", "a", 10) + series(2, "c", "", 9))).toBe(true);
    expect<i32>(state("c")).toBe(AdapterState.Resident);
    const noMax =
      'vllm:lora_requests_info{running_lora_adapters="a",waiting_lora_adapters=""} 10\n' +
      'vllm:lora_requests_info{running_lora_adapters="c",waiting_lora_adapters=""} 9\n';
    expect<bool>(parse(noMax)).toBe(true);
    expect<i32>(state("c")).toBe(AdapterState.NotLoaded);
  });

  it("reads no older series' waiting adapters as loaded, nor a series with a stamp that is not a number", () => {
    const page = series(4, "a", "", 10) + series(4, "", "q", 9) + 'vllm:lora_requests_info{max_lora="4",running_lora_adapters="n"} NaN\n';
    expect<bool>(parse(page)).toBe(true);
    expect<i32>(state("q")).toBe(AdapterState.NotLoaded);
    expect<i32>(state("n")).toBe(AdapterState.NotLoaded);
  });

  it("drops the resident set with the family when the page is cut inside it", () => {
    const page = series(4, "a", "", 10) + series(4, "c", "", 9);
    expect<bool>(parse(page + 'vllm:lora_requests_info{max_lora="4",running_lora_adapters="d"', true)).toBe(false);
    expect<i32>(metrics.residentAdapters.count).toBe(0);
    expect<i32>(state("c")).toBe(AdapterState.NotLoaded);
  });

  it("starts each page afresh", () => {
    expect<bool>(parse(series(4, "a", "", 10) + series(4, "c", "", 9))).toBe(true);
    expect<i32>(state("c")).toBe(AdapterState.Resident);
    expect<bool>(parse(series(4, "a", "", 10))).toBe(true);
    expect<i32>(metrics.residentAdapters.count).toBe(0);
  });
});
