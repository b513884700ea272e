// Where the two builds differ: how the host list and metrics arrive, and how the choice reaches the
// gateway. Higress has host calls for both; stock Envoy gets metrics by polling and routes on a header.
import { PickerState } from "./picker-state";
import { RedisTransport } from "../replica/redis-transport";

export abstract class Platform {
  /** A short name for logs. */
  abstract get name(): string;
  /** Prepares for the given state; returns "" or an error that rejects the configuration. */
  abstract configure(state: PickerState): string;
  /** Brings the registry's endpoints, health and metrics up to date (within the snapshot TTL).
   *  False when no host list is available at all. */
  abstract refresh(state: PickerState, nowMs: f64): bool;
  /** True when the gateway's own balancer must decide: it would give a share of requests to hosts the plugin does
   *  not pick (stock Envoy: degraded hosts, envoy-platform.ts). Read after refresh. */
  balancerDecides(): bool {
    return false;
  }
  /** Sends the current request to the endpoint in `slot`; false when the host refused. */
  abstract route(state: PickerState, slot: i32): bool;
  /** Root-context timer; a period of 0 means no timer. */
  tickPeriodMs(state: PickerState): u32 {
    return 0;
  }
  onTick(state: PickerState, nowMs: f64): void {}
  onHttpCallResponse(state: PickerState, callId: u32, numHeaders: u32, bodySize: u32, nowMs: f64): void {}
  /** The gateway's Redis calls for replica-shared hints; null where the gateway has none (stock Envoy). */
  redisTransport(): RedisTransport | null {
    return null;
  }
}
