// Which cross-worker hints the picker credits: the hinted endpoint is active, its engine has not restarted since
// the hint was published, and its request ended (or was expected to) no longer ago than the time its cache keeps a
// released block (cache-horizon.ts), with HINT_REPUBLISH_MS of slack for skipped republishes.
import { EndpointRegistry, addressHash } from "../endpoints/endpoint-registry";
import { HINT_REPUBLISH_MS, HintCheck } from "../prefix/shared-hints";
import { CacheHorizon } from "./cache-horizon";
import { RestartDetector } from "./restart-detector";
import { Telemetry } from "./telemetry";

export class HintEndpointCheck extends HintCheck {
  /** The registry slot of the endpoint of the hint last accepted. */
  slot: i32 = -1;

  constructor(
    private readonly registry: EndpointRegistry,
    private readonly restarts: RestartDetector,
    private readonly horizon: CacheHorizon,
    private readonly telemetry: Telemetry,
  ) {
    super();
  }

  accepts(addrPtr: usize, addrLen: i32, publishedAtMs: f64, heldUntilMs: f64, nowMs: f64): bool {
    const registry = this.registry;
    const slot = registry.lookup(addressHash(addrPtr, <usize>addrLen), addrPtr, <usize>addrLen);
    if (slot < 0 || !registry.isActive(slot)) return false;
    // Other workers published this before the endpoint's engine restarted with an empty cache.
    if (this.restarts.restartedAfter(slot, publishedAtMs)) return false;
    if (nowMs - heldUntilMs > this.horizon.horizonMs(slot, nowMs) + HINT_REPUBLISH_MS) {
      this.telemetry.add(this.telemetry.sharedHintsExpired, 1);
      return false;
    }
    this.slot = slot;
    return true;
  }
}
