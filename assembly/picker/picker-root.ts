// The plugin's root context on one worker: parses the configuration, allocates the picker's state, and runs
// the platform's timer (the stock build's metrics polling).
import { currentTimeNanos, getBufferBytes, log, returned, setTickPeriodMs, Utf8 } from "../abi/host";
import { HttpContext, RootContext } from "../abi/context";
import { BufferType, LogLevel, Status } from "../abi/types";
import { PickerConfig } from "../config/picker-config";
import { parseConfig } from "../config/parse-config";
import { Platform } from "../route/platform";
import { PickerState } from "./picker-state";
import { PickerStream } from "./picker-stream";
import { Telemetry } from "./telemetry";
import { BodyWatchdog } from "./body-watchdog";
import { streamById } from "../abi/context";

const BODY_WAIT_MS: f64 = 1000;
const WATCHED_STREAMS: i32 = 4096;

function resumeStream(contextId: u32): void {
  const s = streamById(contextId);
  if (s !== null) (s as PickerStream).resumeWithoutBody();
}

export class PickerRoot extends RootContext {
  state: PickerState | null = null;
  saltHeader: Utf8 | null = null;
  sessionHeader: Utf8 | null = null;
  /** Stock build only: resumes streams whose body never reaches the filter (see body-watchdog.ts). */
  watchdog: BodyWatchdog | null = null;
  warnedBodyNotDelivered: bool = false;

  constructor(id: u32, readonly platform: Platform) {
    super(id);
  }

  onConfigure(configSize: u32): bool {
    let ptr: usize = 0;
    let len: usize = 0;
    if (configSize > 0) {
      if (getBufferBytes(BufferType.PluginConfiguration, 0, configSize) != Status.Ok) {
        log(LogLevel.Error, "endpoint-picker: cannot read the plugin configuration");
        return false;
      }
      ptr = returned.ptr;
      len = returned.len;
    }
    const config = new PickerConfig();
    const error = parseConfig(ptr, len, this.platform.name == "envoy", config);
    if (len > 0) returned.release();
    if (error.length > 0) {
      log(LogLevel.Error, "endpoint-picker: " + error);
      return false;
    }
    const telemetry = new Telemetry();
    telemetry.define();
    const state = new PickerState(config, telemetry);
    const platformError = this.platform.configure(state);
    if (platformError.length > 0) {
      log(LogLevel.Error, "endpoint-picker: invalid plugin config: " + platformError);
      return false;
    }
    for (let i = 0; i < config.warnings.length; i++) log(LogLevel.Warn, "endpoint-picker: " + config.warnings[i]);
    state.scheduler.seed(config.seed != 0 ? config.seed : currentTimeNanos() ^ (<u64>this.id << 32));
    this.saltHeader = config.saltHeader.length > 0 ? new Utf8(config.saltHeader) : null;
    this.sessionHeader = config.sessionHeader.length > 0 ? new Utf8(config.sessionHeader) : null;
    this.state = state;
    const period = this.platform.tickPeriodMs(state);
    // No work at configure time: Envoy also configures a short-lived canary VM, which must not take the
    // polling lease. The first tick does the first poll.
    if (period > 0) {
      setTickPeriodMs(period);
      this.watchdog = new BodyWatchdog(WATCHED_STREAMS);
    }
    log(LogLevel.Info, "endpoint-picker: configured (" + this.platform.name + " build)");
    return true;
  }

  onTick(): void {
    const state = this.state;
    if (state === null) return;
    const now = nowMs();
    const watchdog = this.watchdog;
    if (watchdog !== null) watchdog.expire(now, BODY_WAIT_MS, resumeStream);
    this.platform.onTick(state, now);
  }

  onHttpCallResponse(callId: u32, numHeaders: u32, bodySize: u32, numTrailers: u32): void {
    const state = this.state;
    if (state !== null) this.platform.onHttpCallResponse(state, callId, numHeaders, bodySize, nowMs());
  }

  createHttpContext(id: u32): HttpContext {
    return new PickerStream(id, this);
  }
}

export function nowMs(): f64 {
  return <f64>(currentTimeNanos() / 1_000_000);
}
