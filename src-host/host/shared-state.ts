// Process-wide state that Envoy shares across worker VMs: shared data (keyed by vm_id, one global CAS
// counter), shared queues and the stats store. One `ProxyProcess` stands for one Envoy process.
import { MetricType, Status } from "./abi.ts";

interface SharedEntry {
  value: Uint8Array;
  cas: number;
}

export class SharedData {
  private byVm = new Map<string, Map<string, SharedEntry>>();
  private casCounter = 0;

  get(vmId: string, key: string): { status: number; value?: Uint8Array; cas?: number } {
    const e = this.byVm.get(vmId)?.get(key);
    if (!e) return { status: Status.NotFound };
    return { status: Status.Ok, value: e.value, cas: e.cas };
  }

  /** A cas of 0 and a new key always succeed; otherwise the cas must match (cpp-host src/shared_data.cc
   *  SharedData::set; the CAS counter starts at 1 and skips 0, shared_data.h nextCas). */
  set(vmId: string, key: string, value: Uint8Array, cas: number): number {
    let m = this.byVm.get(vmId);
    if (!m) this.byVm.set(vmId, (m = new Map()));
    const e = m.get(key);
    if (e && cas !== 0 && cas !== e.cas) return Status.CasMismatch;
    m.set(key, { value: value.slice(), cas: this.nextCas() });
    return Status.Ok;
  }

  keys(vmId: string): string[] {
    return [...(this.byVm.get(vmId)?.keys() ?? [])];
  }

  private nextCas(): number {
    this.casCounter = (this.casCounter + 1) >>> 0;
    if (this.casCounter === 0) this.casCounter = 1;
    return this.casCounter;
  }
}

export interface QueueOwner {
  onQueueReady(queueId: number): void;
}

interface SharedQueue {
  id: number;
  vmId: string;
  name: string;
  items: Uint8Array[];
  owner: QueueOwner;
}

export class SharedQueues {
  private byId = new Map<number, SharedQueue>();
  private byName = new Map<string, SharedQueue>();
  private nextId = 1;

  register(vmId: string, name: string, owner: QueueOwner): number {
    const key = `${vmId}\0${name}`;
    const existing = this.byName.get(key);
    if (existing) {
      existing.owner = owner;
      return existing.id;
    }
    const q: SharedQueue = { id: this.nextId++, vmId, name, items: [], owner };
    this.byId.set(q.id, q);
    this.byName.set(key, q);
    return q.id;
  }

  resolve(vmId: string, name: string): number | null {
    return this.byName.get(`${vmId}\0${name}`)?.id ?? null;
  }

  enqueue(id: number, value: Uint8Array): number {
    const q = this.byId.get(id);
    if (!q) return Status.NotFound;
    q.items.push(value.slice());
    q.owner.onQueueReady(id);
    return Status.Ok;
  }

  dequeue(id: number): { status: number; value?: Uint8Array } {
    const q = this.byId.get(id);
    if (!q) return { status: Status.NotFound };
    const v = q.items.shift();
    return v ? { status: Status.Ok, value: v } : { status: Status.Empty };
  }
}

export interface Stat {
  type: number;
  value: bigint;
  samples: bigint[];
}

/** The stats store. Metrics are defined per VM but a name maps to one process-wide stat, as in Envoy. */
export class StatsStore {
  private stats = new Map<string, Stat>();

  define(type: number, name: string): boolean {
    if (type !== MetricType.Counter && type !== MetricType.Gauge && type !== MetricType.Histogram) return false;
    const s = this.stats.get(name);
    if (s && s.type !== type) return false;
    if (!s) this.stats.set(name, { type, value: 0n, samples: [] });
    return true;
  }

  /** The stat behind a name, so a VM can keep it per metric id. */
  stat(name: string): Stat | undefined {
    return this.stats.get(name);
  }

  increment(name: string, delta: bigint): number {
    return this.incrementStat(this.stats.get(name), delta);
  }

  incrementStat(s: Stat | undefined, delta: bigint): number {
    if (!s) return Status.NotFound;
    if (s.type === MetricType.Counter) {
      if (delta <= 0n) return Status.BadArgument;
      s.value += delta;
    } else if (s.type === MetricType.Gauge) {
      s.value += delta;
    } else return Status.BadArgument;
    return Status.Ok;
  }

  record(name: string, value: bigint): number {
    const s = this.stats.get(name);
    if (!s) return Status.NotFound;
    if (s.type === MetricType.Counter) s.value += value;
    else if (s.type === MetricType.Gauge) s.value = value;
    else {
      s.samples.push(value);
      if (s.samples.length > 4096) s.samples.shift();
    }
    return Status.Ok;
  }

  get(name: string): { status: number; value?: bigint } {
    const s = this.stats.get(name);
    if (!s) return { status: Status.NotFound };
    if (s.type === MetricType.Histogram) return { status: Status.BadArgument };
    return { status: Status.Ok, value: s.value };
  }

  /** name → value (counters and gauges) or samples (histograms). */
  snapshot(): Record<string, number | number[]> {
    const out: Record<string, number | number[]> = {};
    for (const [k, s] of this.stats) out[k] = s.type === MetricType.Histogram ? s.samples.map(Number) : Number(s.value);
    return out;
  }
}

export class ProxyProcess {
  readonly sharedData = new SharedData();
  readonly queues = new SharedQueues();
  readonly stats = new StatsStore();
}
