import { EndpointRegistry, addressHash } from "../../assembly/endpoints/endpoint-registry";
import { EndpointSignals } from "../../assembly/endpoints/endpoint-signals";
import { LoraState } from "../../assembly/scheduling/candidates";
import { normalizeLora, normalizeQueue } from "../../assembly/scheduling/normalize";
import { ADAPTER_CAPACITY } from "../../assembly/endpoints/adapter-set";

function see(r: EndpointRegistry, address: string): i32 {
  const b = Uint8Array.wrap(String.UTF8.encode(address));
  return r.see(b.dataStart, <usize>b.length, addressHash(b.dataStart, <usize>b.length));
}

function refresh(r: EndpointRegistry, addresses: Array<string>): void {
  r.beginRefresh();
  for (let i = 0; i < addresses.length; i++) r.setHealthy(see(r, addresses[i]), true);
  r.endRefresh(new StaticArray<i32>(r.capacity));
}

function indexOfSlot(s: EndpointSignals, slot: i32): i32 {
  for (let i = 0; i < s.listed.count; i++) if (s.listed.slot[i] == slot) return i;
  return -1;
}

const MODEL_A: u64 = 0xa11ce;
const MODEL_B: u64 = 0xb0b;
const MODEL_C: u64 = 0xc0c;

function lora(r: EndpointRegistry, i: i32, max: i32, running: Array<u64>, waiting: Array<u64>): void {
  const m = r.writableMetrics(r.activeSlots[i]);
  m.hasLora = true;
  m.loraMax = max;
  for (let k = 0; k < running.length; k++) m.runningAdapters.add(running[k]);
  for (let k = 0; k < waiting.length; k++) m.waitingAdapters.add(waiting[k]);
}

describe("EndpointSignals", () => {
  it("lists the active endpoints in active order with their health and metrics", () => {
    const r = new EndpointRegistry(8);
    refresh(r, ["10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000"]);
    const m = r.writableMetrics(r.activeSlots[1]);
    m.waiting = 3;
    m.hasWaiting = true;
    m.running = 5;
    m.hasRunning = true;
    m.kvUsage = 0.25;
    m.hasKv = true;
    r.setHealthy(r.activeSlots[2], false);
    const s = new EndpointSignals(8);
    s.update(r, 0, 8);
    expect<i32>(s.listed.count).toBe(3);
    expect<i32>(s.healthyCount).toBe(2);
    for (let i = 0; i < 3; i++) {
      expect<i32>(s.listed.slot[i]).toBe(r.activeSlots[i]);
      expect<u32>(s.generation[i]).toBe(r.generation(r.activeSlots[i]));
    }
    expect<bool>(s.listed.healthy[2]).toBe(false);
    expect<bool>(s.listed.hasMetrics[0]).toBe(false);
    expect<bool>(s.listed.hasMetrics[1]).toBe(true);
    expect<f64>(s.listed.waiting[1]).toBe(3);
    expect<f64>(s.listed.running[1]).toBe(5);
    expect<f64>(s.listed.kvUsage[1]).toBe(0.25);
    expect<bool>(s.listed.hasKv[1]).toBe(true);
    expect<i32>(s.listed.loraState[1]).toBe(LoraState.Unknown);
  });

  it("has a queue only where the page gave one: a page without the waiting gauge does not read as an empty queue", () => {
    const r = new EndpointRegistry(8);
    refresh(r, ["a:1", "b:1", "c:1"]);
    const withQueue = r.writableMetrics(r.activeSlots[0]);
    withQueue.waiting = 10;
    withQueue.hasWaiting = true;
    withQueue.kvUsage = 0.5;
    withQueue.hasKv = true;
    // A page cut before its waiting gauge, or an engine without one: KV usage and running only.
    const kvOnly = r.writableMetrics(r.activeSlots[1]);
    kvOnly.kvUsage = 0.5;
    kvOnly.hasKv = true;
    const runningOnly = r.writableMetrics(r.activeSlots[2]);
    runningOnly.running = 4;
    runningOnly.hasRunning = true;
    const s = new EndpointSignals(8);
    s.update(r, 0, 8);
    expect<bool>(s.listed.hasMetrics[0]).toBe(true);
    expect<bool>(s.listed.hasMetrics[1]).toBe(false);
    expect<bool>(s.listed.hasMetrics[2]).toBe(false);
    expect<bool>(s.listed.hasKv[1]).toBe(true);
    // So the queue score is the queue's alone, and an endpoint lacking it earns none of it.
    const queue = new StaticArray<f64>(3);
    normalizeQueue(s.listed, queue, 4, 16);
    expect<f64>(queue[0]).toBe(1);
    expect<f64>(queue[1]).toBe(0);
    expect<f64>(queue[2]).toBe(0);
  });

  it("follows every registry change: metrics written, health, endpoints leaving and joining", () => {
    const r = new EndpointRegistry(8);
    refresh(r, ["a:1", "b:1"]);
    const s = new EndpointSignals(8);
    s.update(r, 0, 8);
    const b = r.activeSlots[1];
    r.writableMetrics(b).waiting = 9;
    r.writableMetrics(b).hasWaiting = true;
    s.update(r, 0, 8);
    expect<f64>(s.listed.waiting[indexOfSlot(s, b)]).toBe(9);
    expect<bool>(s.listed.hasMetrics[indexOfSlot(s, b)]).toBe(true);
    r.setHealthy(b, false);
    s.update(r, 0, 8);
    expect<bool>(s.listed.healthy[indexOfSlot(s, b)]).toBe(false);
    expect<i32>(s.healthyCount).toBe(1);
    refresh(r, ["b:1", "c:1"]);
    s.update(r, 0, 8);
    expect<i32>(s.listed.count).toBe(2);
    expect<i32>(s.healthyCount).toBe(2);
    for (let i = 0; i < 2; i++) expect<i32>(s.listed.slot[i]).toBe(r.activeSlots[i]);
    // The slot "a" left may be reused by "c": a new generation, cleared metrics.
    const c = r.activeSlots[1];
    expect<u32>(s.generation[1]).toBe(r.generation(c));
  });

  it("reads the LoRA state for the request's model, again whenever the model changes", () => {
    const r = new EndpointRegistry(4);
    refresh(r, ["a:1", "b:1"]);
    const a = r.activeSlots[0];
    const m = r.writableMetrics(a);
    m.hasLora = true;
    m.runningAdapters.add(MODEL_A);
    m.waitingAdapters.add(MODEL_B);
    const s = new EndpointSignals(4);
    s.update(r, MODEL_A, 4);
    expect<i32>(s.listed.loraState[0]).toBe(LoraState.Running);
    expect<i32>(s.listed.loraState[1]).toBe(LoraState.Unknown);
    s.update(r, MODEL_B, 4);
    expect<i32>(s.listed.loraState[0]).toBe(LoraState.Waiting);
    s.update(r, 0xdead, 4);
    expect<i32>(s.listed.loraState[0]).toBe(LoraState.NotLoaded);
    s.update(r, 0, 4);
    expect<i32>(s.listed.loraState[0]).toBe(LoraState.Unknown);
  });

  it("tells an endpoint with room to load the requested adapter from one whose adapter slots are full", () => {
    const r = new EndpointRegistry(8);
    refresh(r, ["room:1", "full:1", "queued-full:1", "queued-room:1", "many:1"]);
    lora(r, 0, 2, [MODEL_B], []); // one of two adapter slots free
    lora(r, 1, 2, [MODEL_B, MODEL_C], []); // both taken by other adapters: A must wait for one to drain
    lora(r, 2, 1, [MODEL_B], [MODEL_A]); // A queued behind a full set
    lora(r, 3, 3, [MODEL_B], [MODEL_A]); // A queued, with a slot for it
    // More adapters than the set keeps: how many run is not known, so no room is assumed.
    lora(r, 4, 1000, [], []);
    const many = r.writableMetrics(r.activeSlots[4]);
    for (let k = 0; k < ADAPTER_CAPACITY; k++) many.runningAdapters.add(<u64>(0x1000 + k));
    const s = new EndpointSignals(8);
    s.update(r, MODEL_A, 8);
    const score = new StaticArray<f64>(5);
    normalizeLora(s.listed, score);
    // As the Gateway API Inference Extension's lora-affinity scorer ranks them: running 1, room to load 0.8, only
    // queued 0.5 here, no room 0.
    expect<f64>(score[0]).toBe(0.8);
    expect<f64>(score[1]).toBe(0);
    expect<f64>(score[2]).toBe(0.5);
    expect<f64>(score[3]).toBe(0.8);
    expect<f64>(score[4]).toBe(0);
    // An adapter no endpoint lists (loaded nowhere yet) alike.
    s.update(r, 0xada, 8);
    normalizeLora(s.listed, score);
    expect<f64>(score[0]).toBe(0.8);
    expect<f64>(score[1]).toBe(0);
  });

  it("scores the model an endpoint serves (its model_name) as on an endpoint without LoRA: no adapter slot", () => {
    const r = new EndpointRegistry(8);
    refresh(r, ["room:1", "full:1", "queued:1", "no-lora:1"]);
    lora(r, 0, 2, [MODEL_B], []);
    lora(r, 1, 1, [MODEL_B], []);
    lora(r, 2, 1, [MODEL_B], [MODEL_C]);
    for (let i = 0; i < 3; i++) r.writableMetrics(r.activeSlots[i]).servedModel = 0xba5e;
    const s = new EndpointSignals(8);
    s.update(r, 0xba5e, 8);
    for (let i = 0; i < 3; i++) expect<i32>(s.listed.loraState[i]).toBe(LoraState.BaseModel);
    expect<i32>(s.listed.loraState[3]).toBe(LoraState.Unknown);
    const score = new StaticArray<f64>(4);
    // The same score everywhere, whatever the adapter slots: it cannot move a base-model request.
    expect<f64>(normalizeLora(s.listed, score)).toBe(0);
    for (let i = 0; i < 4; i++) expect<f64>(score[i]).toBe(0);
    // An adapter is still told apart by its slots.
    s.update(r, MODEL_A, 8);
    expect<i32>(s.listed.loraState[0]).toBe(LoraState.CanLoad);
    expect<bool>(isNaN(normalizeLora(s.listed, score))).toBe(true);
  });

  it("ranks an adapter that ran last, likely still loaded, between running and a free slot", () => {
    const r = new EndpointRegistry(8);
    refresh(r, ["running:1", "resident:1", "room:1", "resident-and-queued:1"]);
    lora(r, 0, 4, [MODEL_A], []);
    lora(r, 1, 4, [MODEL_B], []);
    r.writableMetrics(r.activeSlots[1]).residentAdapters.add(MODEL_A);
    lora(r, 2, 4, [MODEL_B], []);
    // Queued now: the newest state wins over what ran before.
    lora(r, 3, 4, [MODEL_B], [MODEL_A]);
    r.writableMetrics(r.activeSlots[3]).residentAdapters.add(MODEL_C);
    const s = new EndpointSignals(8);
    s.update(r, MODEL_A, 8);
    expect<i32>(s.listed.loraState[0]).toBe(LoraState.Running);
    expect<i32>(s.listed.loraState[1]).toBe(LoraState.Resident);
    expect<i32>(s.listed.loraState[2]).toBe(LoraState.CanLoad);
    expect<i32>(s.listed.loraState[3]).toBe(LoraState.CanLoad);
    const score = new StaticArray<f64>(4);
    normalizeLora(s.listed, score);
    expect<bool>(score[0] > score[1] && score[1] > score[2]).toBe(true);
    s.update(r, MODEL_C, 8);
    expect<i32>(s.listed.loraState[3]).toBe(LoraState.Resident);
  });

  it("tells a truly free adapter slot from one that evicts an adapter the endpoint ran last", () => {
    const r = new EndpointRegistry(8);
    refresh(r, ["free:1", "evicts:1"]);
    lora(r, 0, 3, [MODEL_B], []);
    r.writableMetrics(r.activeSlots[0]).residentAdapters.add(MODEL_C);
    lora(r, 1, 2, [MODEL_B], []);
    r.writableMetrics(r.activeSlots[1]).residentAdapters.add(MODEL_C);
    const s = new EndpointSignals(8);
    s.update(r, MODEL_A, 8);
    expect<i32>(s.listed.loraState[0]).toBe(LoraState.CanLoad);
    expect<i32>(s.listed.loraState[1]).toBe(LoraState.Evicts);
    const score = new StaticArray<f64>(2);
    normalizeLora(s.listed, score);
    expect<f64>(score[0]).toBe(0.8);
    expect<f64>(score[1]).toBe(0.5);
  });

  it("counts an adapter both running and waiting once: it takes one adapter slot", () => {
    const r = new EndpointRegistry(8);
    refresh(r, ["free:1", "free-beside-resident:1", "full:1"]);
    // B runs and has requests waiting too (vLLM lists it in both labels): one of two slots, so A can load at once.
    lora(r, 0, 2, [MODEL_B], [MODEL_B]);
    // Likewise with C likely still loaded in a third slot of three: the slot left is truly free.
    lora(r, 1, 3, [MODEL_B], [MODEL_B]);
    r.writableMetrics(r.activeSlots[1]).residentAdapters.add(MODEL_C);
    // B and C in use take both slots, whichever label lists them.
    lora(r, 2, 2, [MODEL_B], [MODEL_B, MODEL_C]);
    const s = new EndpointSignals(8);
    s.update(r, MODEL_A, 8);
    expect<i32>(s.listed.loraState[0]).toBe(LoraState.CanLoad);
    expect<i32>(s.listed.loraState[1]).toBe(LoraState.CanLoad);
    expect<i32>(s.listed.loraState[2]).toBe(LoraState.NotLoaded);
  });

  it("lists at most room endpoints and counts the healthy one past a full list, as the fill always has", () => {
    const r = new EndpointRegistry(8);
    refresh(r, ["a:1", "b:1", "c:1", "d:1"]);
    r.setHealthy(r.activeSlots[0], false);
    r.setHealthy(r.activeSlots[1], false);
    const s = new EndpointSignals(8);
    s.update(r, 0, 2);
    expect<i32>(s.listed.count).toBe(2);
    expect<i32>(s.healthyCount).toBe(1);
  });
});
