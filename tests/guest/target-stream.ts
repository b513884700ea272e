// A purpose-built gateway test plugin: it routes each request where its `x-target` header says, once the
// whole request is in (headers-only requests at the headers callback, others at the last body chunk).
//   x-target: "ip:port"        the destination to ask for (how depends on the build, see setTarget)
//   x-fallback: <reason>       set as the endpoint_picker.fallback stream property
//   x-fixture: trap-headers | trap-body | trap-response-headers   trap in that callback
// Every response gets `x-fixture-seq`: how many streams this VM has created, so tests can see VM pinning.
// The counters fixture.on_log and fixture.on_done count the teardown callbacks across VMs.
import * as host from "../../assembly/abi/host";
import { Utf8 } from "../../assembly/abi/host";
import { HttpContext, RootContext } from "../../assembly/abi/context";
import { DataAction, HeadersAction, LogLevel, MapType, MetricType } from "../../assembly/abi/types";

let onLogCounter: u32 = 0;
let onDoneCounter: u32 = 0;
let streamsSeen: i32 = 0;
const FIXTURE = new Utf8("x-fixture");
const SEQ = new Utf8("x-fixture-seq");

export class FixtureRoot extends RootContext {
  constructor(id: u32, readonly setTarget: (target: string) => void) {
    super(id);
  }
  onConfigure(size: u32): bool {
    onLogCounter = host.defineMetric(MetricType.Counter, "fixture.on_log");
    onDoneCounter = host.defineMetric(MetricType.Counter, "fixture.on_done");
    return true;
  }
  createHttpContext(id: u32): HttpContext {
    streamsSeen++;
    return new TargetStream(id, this);
  }
}

class TargetStream extends HttpContext {
  mode: string = "";
  seq: i32 = streamsSeen;

  onRequestHeaders(numHeaders: u32, endOfStream: bool): i32 {
    const m = host.getHeaderValue(MapType.HttpRequestHeaders, "x-fixture");
    this.mode = m === null ? "" : m;
    if (this.mode == "trap-headers") unreachable();
    if (endOfStream) {
      this.decide();
      return HeadersAction.Continue;
    }
    return HeadersAction.StopIteration;
  }

  onRequestBody(bodySize: u32, endOfStream: bool): i32 {
    if (this.mode == "trap-body") unreachable();
    if (!endOfStream) return DataAction.StopIterationAndBuffer;
    this.decide();
    return DataAction.Continue;
  }

  onResponseHeaders(numHeaders: u32, endOfStream: bool): i32 {
    if (this.mode == "trap-response-headers") unreachable();
    const v = String.UTF8.encode(this.seq.toString());
    host.replaceHeaderValue(MapType.HttpResponseHeaders, SEQ, changetype<usize>(v), v.byteLength);
    return HeadersAction.Continue;
  }

  onLog(): void {
    host.incrementMetric(onLogCounter, 1);
  }

  onDone(): bool {
    host.incrementMetric(onDoneCounter, 1);
    return true;
  }

  private decide(): void {
    const target = host.getHeaderValue(MapType.HttpRequestHeaders, "x-target");
    if (target !== null && target.length > 0) (this.root as FixtureRoot).setTarget(target);
    const fallback = host.getHeaderValue(MapType.HttpRequestHeaders, "x-fallback");
    if (fallback !== null) host.setProperty(host.propertyPath(["endpoint_picker", "fallback"]), String.UTF8.encode(fallback));
    host.removeHeader(MapType.HttpRequestHeaders, FIXTURE);
    host.log(LogLevel.Debug, "fixture decided");
  }
}
