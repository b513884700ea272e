// What the endpoint snapshot says about each active endpoint, in active order: slot, generation, health, the
// queue and KV metrics and the LoRA state for the request's model, as arrays the candidate fill copies whole.
// The snapshot changes once per refresh, requests arrive far more often, and at hundreds of endpoints reading every
// endpoint's metrics object was the larger part of a fill; so the arrays are rebuilt only when the registry's
// version changes, or the model does while some endpoint reports LoRA adapters.
import { LoraState } from "../scheduling/candidates";
import { EndpointRegistry } from "./endpoint-registry";

export class EndpointSignals {
  private builtVersion: u32 = 0; // the registry's version is never 0
  private builtModel: u64 = 0;
  private anyLora: bool = false;
  /** Endpoints listed: the active ones, at most the room update() was given. */
  count: i32 = 0;
  /** Healthy endpoints among the active ones a fill looks at: the listed ones and, past a full list, one more. */
  healthyCount: i32 = 0;
  readonly slot: StaticArray<i32>;
  readonly generation: StaticArray<u32>;
  readonly healthy: StaticArray<bool>;
  /** Whether waiting and running were read from the endpoint's metrics. */
  readonly hasMetrics: StaticArray<bool>;
  readonly waiting: StaticArray<f64>;
  readonly running: StaticArray<f64>;
  readonly kvUsage: StaticArray<f64>;
  readonly hasKv: StaticArray<bool>;
  readonly loraState: StaticArray<i32>;

  constructor(capacity: i32) {
    const n = capacity > 0 ? capacity : 0;
    this.slot = new StaticArray<i32>(n);
    this.generation = new StaticArray<u32>(n);
    this.healthy = new StaticArray<bool>(n);
    this.hasMetrics = new StaticArray<bool>(n);
    this.waiting = new StaticArray<f64>(n);
    this.running = new StaticArray<f64>(n);
    this.kvUsage = new StaticArray<f64>(n);
    this.hasKv = new StaticArray<bool>(n);
    this.loraState = new StaticArray<i32>(n);
  }

  /** Brings the arrays up to date with the registry and the request's model (0: none); lists at most `room`. */
  update(registry: EndpointRegistry, modelHash: u64, room: i32): void {
    if (this.builtVersion == registry.version && (!this.anyLora || this.builtModel == modelHash)) return;
    this.builtVersion = registry.version;
    this.builtModel = modelHash;
    const active = registry.activeCount;
    const slots = registry.activeSlots;
    const healthyBySlot = registry.healthyBySlot;
    const generationBySlot = registry.generationBySlot;
    const metricsBySlot = registry.metricsBySlot;
    const slotCount = <u32>min<i32>(healthyBySlot.length, min<i32>(generationBySlot.length, metricsBySlot.length));
    const limit = min<i32>(room, this.slot.length);
    let count = 0;
    let healthy = 0;
    let anyLora = false;
    for (let i = 0; i < active; i++) {
      const slot = unchecked(slots[i]);
      // Active slots are always in range; anything else would be an unhealthy endpoint without signals.
      const inRange = <u32>slot < slotCount;
      const ok = inRange && unchecked(healthyBySlot[slot]);
      if (ok) healthy++;
      if (i >= limit) break;
      unchecked((this.slot[i] = slot));
      unchecked((this.healthy[i] = ok));
      if (inRange) {
        const m = unchecked(metricsBySlot[slot]);
        const hasKv = m.hasKv;
        anyLora = anyLora || m.hasLora;
        unchecked((this.generation[i] = unchecked(generationBySlot[slot])));
        unchecked((this.hasMetrics[i] = m.hasWaiting || m.hasRunning || hasKv));
        unchecked((this.waiting[i] = m.waiting));
        unchecked((this.running[i] = m.running));
        unchecked((this.kvUsage[i] = m.kvUsage));
        unchecked((this.hasKv[i] = hasKv));
        unchecked((this.loraState[i] = m.hasLora && modelHash != 0 ? m.isAdapterLoaded(modelHash) : LoraState.Unknown));
      } else {
        unchecked((this.generation[i] = 0));
        unchecked((this.hasMetrics[i] = false));
        unchecked((this.waiting[i] = 0));
        unchecked((this.running[i] = 0));
        unchecked((this.kvUsage[i] = 0));
        unchecked((this.hasKv[i] = false));
        unchecked((this.loraState[i] = LoraState.Unknown));
      }
      count = i + 1;
    }
    this.count = count;
    this.healthyCount = healthy;
    this.anyLora = anyLora;
  }
}
