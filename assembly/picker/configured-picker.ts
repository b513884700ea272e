// One configuration in use on a worker — the default one or a `_rules_` entry — with everything it keeps:
// its state (index, registry, scheduler...), its own platform instance (so its own host snapshot) and the
// request headers it reads.
import { Utf8 } from "../abi/host";
import { Platform } from "../core/platform";
import { PickerState } from "../core/picker-state";
import { ReplicaHints } from "../replica/replica-hints";

export class ConfiguredPicker {
  readonly saltHeader: Utf8 | null;
  readonly sessionHeader: Utf8 | null;
  /** When the platform's timer last ran for this configuration. */
  lastTickMs: f64 = -1e18;
  /** Hints shared with the other gateway replicas through Redis (null unless redis.cluster is set). */
  replica: ReplicaHints | null = null;

  constructor(readonly state: PickerState, readonly platform: Platform) {
    const c = state.config;
    this.saltHeader = c.saltHeader.length > 0 ? new Utf8(c.saltHeader) : null;
    this.sessionHeader = c.sessionHeader.length > 0 ? new Utf8(c.sessionHeader) : null;
  }
}
