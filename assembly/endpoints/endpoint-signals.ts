// What the endpoint snapshot says about each active endpoint, in active order: slot, generation, health, the
// queue and KV metrics and the LoRA state for the request's model, as arrays the candidate fill copies whole.
// The snapshot changes once per refresh, requests arrive far more often, and at hundreds of endpoints reading every
// endpoint's metrics object was the larger part of a fill; so the arrays are rebuilt only when the registry's
// version changes, or the model does while some endpoint reports LoRA adapters.
import { Candidates, LoraState } from "../scheduling/candidates";
import { ADAPTER_CAPACITY } from "./adapter-set";
import { AdapterState, EndpointMetrics } from "./endpoint-metrics";
import { EndpointRegistry } from "./endpoint-registry";
import { SnapshotLoad } from "../scheduling/load-ranges";

// The requested adapter on an endpoint reporting LoRA state. An adapter that is not running can be loaded at once
// when the endpoint runs and queues fewer adapters than max_lora (the Gateway API Inference Extension's
// lora-affinity scorer's "capacity" case, ahead of its "waiting" one); with a set full past what it keeps, how many
// run is not known, so no room is assumed. One that ran last and is likely still loaded (lora-residency.ts) needs no
// load, so it ranks above a free slot; where those likely loaded fill max_lora, loading evicts one of them (vLLM's
// LRU), so that room ranks below a free slot. The model the endpoint serves (its model_name) is no adapter: vLLM
// holds a request back for max_loras only when it has a LoRA request (vllm/v1/core/sched/scheduler.py,
// Scheduler.schedule: "request.lora_request and ... Scheduling would exceed max_loras, skip"), so a base-model
// request is scored as on an endpoint without LoRA, alike on every endpoint. (The Gateway API Inference Extension's
// scorer and filter, lora_affinity.go / lora_affinity_filter.go, look the request's model up among the adapters
// only, so a base-model request there reads "can load" or "no room" by the endpoint's adapter slots.)
function loraStateOf(m: EndpointMetrics, modelHash: u64): i32 {
  if (modelHash == m.servedModel) return LoraState.BaseModel;
  const state = m.isAdapterLoaded(modelHash);
  if (state == AdapterState.Running) return LoraState.Running;
  if (state == AdapterState.Resident) return LoraState.Resident;
  // An adapter both running and waiting takes one slot (adaptersInUse counts it once).
  if (m.runningAdapters.count < ADAPTER_CAPACITY && m.waitingAdapters.count < ADAPTER_CAPACITY) {
    const inUse = m.adaptersInUse();
    if (inUse < m.loraMax) return inUse + m.residentAdapters.count < m.loraMax ? LoraState.CanLoad : LoraState.Evicts;
  }
  return state == AdapterState.Waiting ? LoraState.Waiting : LoraState.NotLoaded;
}

export class EndpointSignals {
  private builtVersion: u32 = 0; // the registry's version is never 0
  private builtModel: u64 = 0;
  private anyLora: bool = false;
  /**
   * The listed endpoints (the active ones, at most the room update() was given) as candidates, with the fields the
   * snapshot decides: slot, healthy, hasMetrics, waiting, running, kvUsage, hasKv, loraState. The fields that change
   * with every request are left at 0.
   */
  readonly listed: Candidates;
  /** Each listed endpoint's registry generation. */
  readonly generation: StaticArray<u32>;
  /** Each listed endpoint's waiting where it is a number >= 0, else 0: the queue of an endpoint without requests
   *  outstanding from this gateway (candidate-fill.ts, process-wide load). */
  readonly waitingOrZero: StaticArray<f64>;
  /** The load ranges of the listed endpoints without requests outstanding (waitingOrZero, none in flight). */
  readonly snapshotLoad: SnapshotLoad = new SnapshotLoad();
  /** Per registry slot below the capacity: its index in the list, or -1. */
  readonly indexBySlot: StaticArray<i32>;
  /** Whether every listed endpoint's slot is its index (slot i at index i): per-slot arrays then copy whole. */
  slotsInOrder: bool = false;
  /** Healthy endpoints among the active ones a fill looks at: the listed ones and, past a full list, one more. */
  healthyCount: i32 = 0;
  /** How many times the list was rebuilt (wraps): a fill that copied it at this count still holds its copy. */
  builds: u32 = 0;

  constructor(capacity: i32) {
    const n = capacity > 0 ? capacity : 0;
    this.listed = new Candidates(n);
    this.generation = new StaticArray<u32>(n);
    this.waitingOrZero = new StaticArray<f64>(n);
    this.indexBySlot = new StaticArray<i32>(n);
    this.indexBySlot.fill(-1);
  }

  /** Brings the list up to date with the registry and the request's model (0: none); lists at most `room`. */
  update(registry: EndpointRegistry, modelHash: u64, room: i32): void {
    if (this.builtVersion == registry.version && (!this.anyLora || this.builtModel == modelHash)) return;
    this.builtVersion = registry.version;
    this.builtModel = modelHash;
    this.builds++;
    const active = registry.activeCount;
    const slots = registry.activeSlots;
    const healthyBySlot = registry.healthyBySlot;
    const generationBySlot = registry.generationBySlot;
    const metricsBySlot = registry.metricsBySlot;
    const slotCount = <u32>min<i32>(healthyBySlot.length, min<i32>(generationBySlot.length, metricsBySlot.length));
    const c = this.listed;
    const limit = min<i32>(room, min<i32>(c.capacity, min<i32>(this.generation.length, this.waitingOrZero.length)));
    const indexBySlot = this.indexBySlot;
    const indexSlots = <u32>indexBySlot.length;
    for (let i = 0; i < c.count; i++) {
      const slot = unchecked(c.slot[i]);
      if (<u32>slot < indexSlots) unchecked((indexBySlot[slot] = -1));
    }
    c.clear();
    let inOrder = true;
    let healthy = 0;
    let anyLora = false;
    for (let i = 0; i < active; i++) {
      const slot = unchecked(slots[i]);
      // Active slots are always in range; anything else would be an unhealthy endpoint without signals.
      const inRange = <u32>slot < slotCount;
      const ok = inRange && unchecked(healthyBySlot[slot]);
      if (ok) healthy++;
      if (i >= limit) break;
      const k = c.addSlot(slot); // k == i: a fresh list, below its capacity
      unchecked((c.healthy[k] = ok));
      unchecked((this.generation[k] = inRange ? unchecked(generationBySlot[slot]) : 0));
      unchecked((this.waitingOrZero[k] = 0));
      if (<u32>slot < indexSlots) unchecked((indexBySlot[slot] = k));
      inOrder = inOrder && slot == k;
      if (!inRange) continue;
      const m = unchecked(metricsBySlot[slot]);
      const hasKv = m.hasKv;
      anyLora = anyLora || m.hasLora;
      // The queue score and the load guard read waiting only where the page gave it: a page with KV usage but no
      // waiting gauge (cut before it, or an engine without one) must not read as an empty queue.
      unchecked((c.hasMetrics[k] = m.hasWaiting));
      unchecked((c.waiting[k] = m.waiting));
      unchecked((this.waitingOrZero[k] = m.waiting >= 0 ? m.waiting : 0));
      unchecked((c.running[k] = m.running));
      unchecked((c.kvUsage[k] = m.kvUsage));
      unchecked((c.hasKv[k] = hasKv));
      if (m.hasLora && modelHash != 0) unchecked((c.loraState[k] = loraStateOf(m, modelHash)));
    }
    c.deriveLanes(c.count);
    this.snapshotLoad.measure(c, this.waitingOrZero, c.count);
    this.slotsInOrder = inOrder;
    this.healthyCount = healthy;
    this.anyLora = anyLora;
  }
}
