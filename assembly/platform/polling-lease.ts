// Which worker polls something: the one holding its lease in shared data, renewed with compare-and-swap on every
// tick, so a worker whose VM dies hands the job over when the lease expires. (Shared data is one map per vm_id:
// cpp-host shared_data.cc; proxy_set_shared_data with a cas other than the stored one fails with CasMismatch.)
import { getSharedData, setSharedData, SharedValue, Utf8 } from "../abi/host";
import { Status } from "../abi/types";

export class PollingLease {
  private readonly value: usize = memory.data(16);
  /** The lease as read from shared data (released before take() returns). */
  private readonly read: SharedValue = new SharedValue();

  /** `leaseMs`: how long a lease lasts past its last renewal; `token`: this worker's (worker-token.ts). */
  constructor(
    private readonly key: Utf8,
    private readonly leaseMs: f64,
    private readonly token: u64,
  ) {}

  /** Takes or renews the lease; true when this worker holds it. */
  take(nowMs: f64): bool {
    let cas: u32 = 0;
    const lease = this.read;
    if (getSharedData(this.key, lease) == Status.Ok) {
      const ok = lease.len >= 16;
      const owner = ok ? load<u64>(lease.ptr) : 0;
      const expires = ok ? load<f64>(lease.ptr, 8) : 0;
      cas = lease.cas;
      lease.release();
      // Another worker's lease stands until it expires, unless it ends further ahead than a renewal sets it: the
      // wall clock (proxy_get_current_time_nanoseconds) stepped back since it was written, and a holder that died
      // then would keep it for as long as the step. (Every holder of this key renews alike.)
      if (owner != this.token && expires > nowMs && expires - nowMs <= this.leaseMs) return false;
    }
    store<u64>(this.value, this.token);
    store<f64>(this.value, nowMs + this.leaseMs, 8);
    return setSharedData(this.key, this.value, 16, cas) == Status.Ok;
  }
}
