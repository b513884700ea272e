// Which adapters a vLLM server likely still holds loaded though none of its requests use them now. vLLM's
// vllm:lora_requests_info keeps one series per (running, waiting, max_lora) label set, valued with the time that set
// was last current (vllm/v1/metrics/loggers.py, PrometheusStatLogger.record: labels(...).set_to_current_time()), and
// its worker keeps the adapters used last in its max_loras GPU slots, evicting the least recently used one for a new
// adapter (vllm/lora/worker_manager.py, LRUCacheWorkerLoRAManager.add_adapter; vllm/lora/model_manager.py,
// LRUCacheLoRAModelManager.activate_adapter). So the running adapters of the series stamped most recently, newest
// first, up to max_lora adapters with those running and waiting now, approximate what is resident.
// The parser notes a page's series here while it reads the page; the spans point into the page, so the resident set
// is taken before the parse returns. Fixed capacity: a page can hold hundreds of series, only the newest are kept.
import { ADAPTER_CAPACITY, AdapterSet } from "./adapter-set";
import { EndpointMetrics } from "./endpoint-metrics";
import { readAdapterList } from "./prometheus-line";

// Series kept per page. A series names at least one adapter that the next older one does not (else the label set is
// the same series), so a few times max_lora series are enough for the usual max_lora of 1-8.
export const KEPT_LORA_SERIES: i32 = 16;

export class LoraResidency {
  private readonly stamps: StaticArray<f64> = new StaticArray<f64>(KEPT_LORA_SERIES);
  private readonly runningStart: StaticArray<usize> = new StaticArray<usize>(KEPT_LORA_SERIES);
  private readonly runningEnd: StaticArray<usize> = new StaticArray<usize>(KEPT_LORA_SERIES);
  private readonly scratch: AdapterSet = new AdapterSet();
  private count: i32 = 0;

  clear(): void {
    this.count = 0;
  }

  /** Keeps a series stamped `stamp` (finite) if it is among the newest; of equal stamps the earlier one ranks first. */
  note(stamp: f64, runningStart: usize, runningEnd: usize): void {
    let i = this.count;
    if (i == KEPT_LORA_SERIES) {
      if (stamp <= unchecked(this.stamps[KEPT_LORA_SERIES - 1])) return;
      i = KEPT_LORA_SERIES - 1;
    } else {
      this.count = i + 1;
    }
    for (; i > 0 && unchecked(this.stamps[i - 1]) < stamp; i--) {
      unchecked((this.stamps[i] = this.stamps[i - 1]));
      unchecked((this.runningStart[i] = this.runningStart[i - 1]));
      unchecked((this.runningEnd[i] = this.runningEnd[i - 1]));
    }
    unchecked((this.stamps[i] = stamp));
    unchecked((this.runningStart[i] = runningStart));
    unchecked((this.runningEnd[i] = runningEnd));
  }

  /**
   * Sets out.residentAdapters: the running adapters of the kept series, newest series first, that out neither runs
   * nor queues, until those running, waiting and resident together reach out.loraMax. The kept spans must still be
   * readable (call before the page's parse returns).
   */
  fill(out: EndpointMetrics): void {
    const resident = out.residentAdapters;
    resident.clear();
    const running = out.runningAdapters;
    const waiting = out.waitingAdapters;
    const room = min<i32>(out.loraMax, ADAPTER_CAPACITY) - out.adaptersInUse();
    if (room <= 0) return;
    const names = this.scratch;
    for (let k = 0; k < this.count; k++) {
      readAdapterList(unchecked(this.runningStart[k]), unchecked(this.runningEnd[k]), names);
      for (let j = 0; j < names.count; j++) {
        const h = unchecked(names.hashes[j]);
        if (running.has(h) || waiting.has(h) || !resident.add(h)) continue;
        if (resident.count >= room) return;
      }
    }
  }
}
