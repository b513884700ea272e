// What a stream sees of its worker's root context: the configuration, the telemetry, the body watchdog and
// the choice of the picker for the current request. The root (picker-root.ts) implements it; streams
// depend on this, not on the root, so the root can create streams without a cycle.
import { RootContext } from "../abi/context";
import { PluginConfig } from "../config/plugin-config";
import { Telemetry } from "../core/telemetry";
import { BodyWatchdog } from "./body-watchdog";
import { LateBodyReads } from "./late-body-reads";
import { CallbackScratch } from "./callback-scratch";
import { ConfiguredPicker } from "./configured-picker";
import { PendingCalls } from "../replica/pending-calls";
import { RedisTelemetry } from "../replica/redis-telemetry";

export abstract class WorkerPickers extends RootContext {
  config: PluginConfig | null = null;
  /** The root's counters, whatever its configurations: every picker it makes counts here, and its tick writes them. */
  readonly telemetry: Telemetry = new Telemetry();
  /** The last select() found a rule whose platform refused it. */
  selectionFailed: bool = false;
  /** Stock build only: resumes streams whose body never reaches the filter (see body-watchdog.ts). */
  watchdog: BodyWatchdog | null = null;
  warnedBodyNotDelivered: bool = false;
  /** Higress build only: streams whose body came short of its Content-Length, read again on the next tick. */
  lateReads: LateBodyReads | null = null;
  /** Redis calls in flight and the replica counters (made with the first configuration that uses Redis). */
  redisPending: PendingCalls | null = null;
  redisTelemetry: RedisTelemetry | null = null;
  /** Buffers and the decision a stream uses within one callback (see callback-scratch.ts). */
  readonly scratch: CallbackScratch = new CallbackScratch();

  /**
   * The picker for the current request (its headers are available): the first matching rule's, else the
   * default one. Null when no default configuration exists and no rule matches, or the rule's platform
   * refused it (then selectionFailed is set).
   */
  abstract select(): ConfiguredPicker | null;

  /** Gives up the Redis calls past their timeout, resuming their requests; the effective context is then
   *  `currentContextId` again. */
  abstract expireRedisCalls(now: f64, currentContextId: u32): void;
}
