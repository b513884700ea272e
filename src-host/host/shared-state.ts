// Process-wide state that Envoy shares across worker VMs: shared data (keyed by vm_id, one global CAS
// counter), shared queues and the stats store. One `ProxyProcess` stands for one Envoy process.
import { MetricType, Status } from "./abi.ts";

interface SharedEntry {
  value: Uint8Array;
  cas: number;
  /** get() gave the value to a caller, who may keep it: a later set stores a new array. */
  handedOut: boolean;
  /** A view of `value` for copies over it in place, made at the first such copy. */
  view: DataView | null;
}

/** A stored value and its cas, in place: valid until the next set of its key. */
export interface SharedValue {
  readonly value: Uint8Array;
  readonly cas: number;
}

export class SharedData {
  private byVm = new Map<string, Map<string, SharedEntry>>();
  private casCounter = 0;
  /** The vm_id looked up last and its entries: a worker's calls all name its own (a map, once made, stays). */
  private lastVmId: string | null = null;
  private lastEntries: Map<string, SharedEntry> | undefined = undefined;

  private entriesOf(vmId: string): Map<string, SharedEntry> | undefined {
    if (vmId !== this.lastVmId) {
      this.lastEntries = this.byVm.get(vmId);
      // An absent vm_id is looked up again next time (a set may add it).
      this.lastVmId = this.lastEntries === undefined ? null : vmId;
    }
    return this.lastEntries;
  }

  /** The value, which no later set changes, and its cas. */
  get(vmId: string, key: string): { status: number; value?: Uint8Array; cas?: number } {
    const e = this.entriesOf(vmId)?.get(key);
    if (!e) return { status: Status.NotFound };
    e.handedOut = true;
    return { status: Status.Ok, value: e.value, cas: e.cas };
  }

  /** As get, for a caller that copies the value at once (proxy_get_shared_data, as cpp-host exports.cc
   *  get_shared_data copies SharedData::get's copy into the module): the stored bytes in place, not handed out, so
   *  the next set may write over them. */
  peek(vmId: string, key: string): SharedValue | undefined {
    return this.entriesOf(vmId)?.get(key);
  }

  /** A cas of 0 and a new key always succeed; otherwise the cas must match (cpp-host src/shared_data.cc
   *  SharedData::set; the CAS counter starts at 1 and skips 0, shared_data.h nextCas). The value is copied: over
   *  the stored bytes when they have its length and no get() handed them out, else into a new array. */
  set(vmId: string, key: string, value: Uint8Array, cas: number): number {
    return this.setFrom(vmId, key, new DataView(value.buffer, value.byteOffset, value.length), 0, value.length, cas);
  }

  /** As set, for the value at [ptr, ptr + len) of `src` (the module's memory, read in place). */
  setFrom(vmId: string, key: string, src: DataView, ptr: number, len: number, cas: number): number {
    let m = this.entriesOf(vmId);
    if (!m) this.byVm.set(vmId, (m = new Map()));
    const e = m.get(key);
    if (e && cas !== 0 && cas !== e.cas) return Status.CasMismatch;
    if (!e) {
      m.set(key, { value: copyOf(src, ptr, len), cas: this.nextCas(), handedOut: false, view: null });
    } else if (e.handedOut || e.value.length !== len) {
      e.value = copyOf(src, ptr, len);
      e.view = null;
      e.handedOut = false;
      e.cas = this.nextCas();
    } else {
      // A hint or a load record, tens of bytes: four at a time through views kept, sooner than a new view and set().
      const v = e.view ?? (e.view = new DataView(e.value.buffer, e.value.byteOffset, len));
      let i = 0;
      for (; i + 4 <= len; i += 4) v.setInt32(i, src.getInt32(ptr + i, true), true);
      for (; i < len; i++) v.setUint8(i, src.getUint8(ptr + i));
      e.cas = this.nextCas();
    }
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

function copyOf(src: DataView, ptr: number, len: number): Uint8Array {
  return new Uint8Array(src.buffer.slice(src.byteOffset + ptr, src.byteOffset + ptr + len));
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
  /** Counters and gauges: Envoy's uint64 value (a gauge taken below 0 wraps, as GaugeImpl::sub does in a
   *  release build). */
  value: bigint;
  samples: bigint[];
}

const U64 = (v: bigint) => BigInt.asUintN(64, v);
const TYPE_NAMES = ["counter", "gauge", "histogram"];

/** The stats store. Metrics are defined per VM but a (type, name) maps to one process-wide stat, as in Envoy,
 *  whose store keeps counters, gauges and histograms apart: one name may be all three. */
export class StatsStore {
  private stats = new Map<string, Stat & { name: string }>();

  /** The stat of that type and name, created at zero the first time (Stats::Utility::counterFromElements,
   *  gaugeFromStatNames, histogramFromStatNames). */
  stat(type: number, name: string): Stat {
    const key = `${type}\0${name}`;
    let s = this.stats.get(key);
    if (!s) this.stats.set(key, (s = { type, name, value: 0n, samples: [] }));
    return s;
  }

  /** Counter add / gauge add or sub (envoy context.cc Context::incrementMetric decides what is allowed). */
  add(s: Stat, delta: bigint): void {
    s.value = U64(s.value + delta);
  }

  /** Context::recordMetric: a counter adds, a gauge is set, a histogram records a sample. */
  record(s: Stat, value: bigint): void {
    if (s.type === MetricType.Counter) s.value = U64(s.value + value);
    else if (s.type === MetricType.Gauge) s.value = U64(value);
    else {
      s.samples.push(U64(value));
      if (s.samples.length > 4096) s.samples.shift();
    }
  }

  /** name → value (counters and gauges) or samples (histograms); a name also defined with another type is
   *  listed again as "name (gauge)" etc. */
  snapshot(): Record<string, number | number[]> {
    const out: Record<string, number | number[]> = {};
    for (const s of this.stats.values()) {
      const key = s.name in out ? `${s.name} (${TYPE_NAMES[s.type]})` : s.name;
      out[key] = s.type === MetricType.Histogram ? s.samples.map(Number) : Number(s.value);
    }
    return out;
  }
}

export class ProxyProcess {
  readonly sharedData = new SharedData();
  readonly queues = new SharedQueues();
  readonly stats = new StatsStore();
}
