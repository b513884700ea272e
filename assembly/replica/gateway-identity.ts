// A number that names this gateway (one Envoy process: all its workers) among the replicas that share Redis, so a
// replica can tell its own Redis hints from the others'. Its own hints went into its workers' shared-data hints too,
// where they are judged by the endpoint's cache horizon; read back from Redis they must be judged the same way,
// or a replica would credit, through Redis, what its own hints have already refused as evicted. The first worker
// draws it from the clock (replicas start at different nanoseconds) mixed with its worker token and writes it in
// shared data; the others read it there. Workers starting at once may each write one; every worker reads the
// shared value again at most every REREAD_MS, so they settle on the last one written.
import { currentTimeNanos, getSharedData, setSharedData, SharedValue, Utf8 } from "../abi/host";
import { Status } from "../abi/types";
import { mix64 } from "../scheduling/rng";

const KEY = new Utf8("endpoint_picker/gateway_id");
const REREAD_MS: f64 = 1000;

export class GatewayIdentity {
  private current: u64 = 0;
  private readAtMs: f64 = -Infinity;
  private readonly shared: SharedValue = new SharedValue();
  private readonly value: usize = memory.data(8);

  constructor(private readonly workerToken: u64) {}

  /** This gateway's number (never 0), as the workers last agreed on it. */
  id(nowMs: f64): u64 {
    if (this.current != 0 && nowMs - this.readAtMs < REREAD_MS && nowMs >= this.readAtMs) return this.current;
    this.readAtMs = nowMs;
    if (getSharedData(KEY, this.shared) == Status.Ok) {
      const stored = this.shared.len >= 8 ? load<u64>(this.shared.ptr) : 0;
      this.shared.release();
      if (stored != 0) {
        this.current = stored;
        return stored;
      }
    }
    if (this.current == 0) {
      const drawn = mix64(currentTimeNanos() ^ (this.workerToken * 0x9e3779b97f4a7c15));
      this.current = drawn != 0 ? drawn : 1;
    }
    store<u64>(this.value, this.current);
    setSharedData(KEY, this.value, 8, 0);
    return this.current;
  }
}
