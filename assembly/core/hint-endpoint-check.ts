// Which hints of other workers or replicas the picker credits: the hinted endpoint is active and its engine has
// not restarted since the hint was published; for a cross-worker hint, also its request ended (or was expected to)
// no longer ago than the time its cache keeps a released block (cache-horizon.ts), with HINT_REPUBLISH_MS of slack
// for skipped republishes, and, where the engine reports nothing to measure that by, no longer than the caller allows.
import { EndpointRegistry, addressHash } from "../endpoints/endpoint-registry";
import { HINT_REPUBLISH_MS, HintCheck, lastHeldMs } from "../prefix/shared-hints";
import { CacheHorizon } from "./cache-horizon";
import { RestartDetector } from "./restart-detector";
import { Telemetry } from "./telemetry";

export enum HintVerdict {
  Current = 0,
  /** The address is not an active endpoint of this configuration. */
  UnknownEndpoint = 1,
  /** The endpoint's engine restarted after the hint was published. */
  Restarted = 2,
  /** The endpoint's cache has overwritten blocks released when the hint's request ended. */
  Expired = 3,
  /** The endpoint cannot be picked now (unhealthy): a shorter hint may name one that can. */
  Unhealthy = 4,
}

export class HintEndpointCheck extends HintCheck {
  /** The registry slot of the endpoint of the hint last found current. */
  slot: i32 = -1;

  constructor(
    private readonly registry: EndpointRegistry,
    private readonly restarts: RestartDetector,
    private readonly horizon: CacheHorizon,
    private readonly telemetry: Telemetry,
  ) {
    super();
  }

  /** A cross-worker hint: its endpoint is current and its cache still keeps what the hint names (or, when its cache
   *  horizon is not known, the hint is no older than unjudgedMaxAgeMs). */
  accepts(addrPtr: usize, addrLen: i32, publishedAtMs: f64, heldUntilMs: f64, nowMs: f64, unjudgedMaxAgeMs: f64): bool {
    if (this.current(addrPtr, addrLen, publishedAtMs) != HintVerdict.Current) return false;
    const slot = this.slot;
    const age = nowMs - lastHeldMs(publishedAtMs, heldUntilMs);
    if (!this.withinHorizon(slot, heldUntilMs, nowMs) || (age > unjudgedMaxAgeMs && !this.horizon.knows(slot))) {
      this.telemetry.add(this.telemetry.sharedHintsExpired, 1);
      return false;
    }
    return true;
  }

  /** Whether the slot's cache still keeps blocks a request released at heldUntilMs. */
  withinHorizon(slot: i32, heldUntilMs: f64, nowMs: f64): bool {
    return nowMs - heldUntilMs <= this.horizon.horizonMs(slot, nowMs) + HINT_REPUBLISH_MS;
  }

  /** Whether the hint names an active endpoint whose engine has not restarted since it was published; sets `slot`
   *  to that endpoint's when it does. Counts nothing. */
  current(addrPtr: usize, addrLen: i32, publishedAtMs: f64): HintVerdict {
    const registry = this.registry;
    const slot = registry.lookup(addressHash(addrPtr, <usize>addrLen), addrPtr, <usize>addrLen);
    if (slot < 0 || !registry.isActive(slot)) return HintVerdict.UnknownEndpoint;
    // An unhealthy endpoint (the stock build's configured endpoint whose polls fail, Higress's host marked unhealthy):
    // a hint naming it would stand as the request's longest match and hide the shorter hints of endpoints that can
    // take the request.
    if (!registry.healthy(slot)) return HintVerdict.Unhealthy;
    // Published before the endpoint's engine restarted with an empty cache.
    if (this.restarts.restartedAfter(slot, publishedAtMs)) return HintVerdict.Restarted;
    this.slot = slot;
    return HintVerdict.Current;
  }
}
