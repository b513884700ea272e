// A test plugin whose body callbacks return what the test scripts, one result per callback, and log what they read:
// "CHECK req_body <size argument>:<body read>" and "CHECK resp_body ...". The script is a string of digits
// (FilterDataStatus: 0 Continue, 1 StopIterationAndBuffer, 2 StopIterationAndWatermark, 3 StopIterationNoBuffer) in
// the request header x-body-results and the response header x-response-body-results; a body callback past its end
// continues. x-headers-result, in either direction, is what the headers callback returns. A 4 calls continue_stream from the callback, reads the body again ("CHECK <name>_after_continue") and
// continues. A body callback that reads "rewrite" replaces what it reads with "REWRITTEN". The response trailers
// callback logs what it reads, adds x-plugin-saw, and returns the response header x-trailers-result (default Continue).
export * from "../../assembly/abi/higress-abi-version";
export * from "../../assembly/abi/abi-version";
export * from "../../assembly/abi/exports";
import "../../assembly/abi/abort";
import * as host from "../../assembly/abi/host";
import { HttpContext, RootContext, setRootContextFactory } from "../../assembly/abi/context";
import { BufferType, DataAction, HeadersAction, LogLevel, MapType, StreamType } from "../../assembly/abi/types";

const out = new host.Returned();

function readBody(type: i32): string {
  if (host.getBufferBytes(type, 0, 0xffffffff, out) != 0) return "<none>";
  const s = out.toString();
  out.release();
  return s;
}

/** The test's continue_stream, from the root context (as a timer or an HTTP call's callback would). */
export function body_results_continue_stream(contextId: u32, streamType: i32): void {
  host.setEffectiveContext(contextId);
  host.continueStream(streamType);
}

/** Reads a stream's body from the root context, outside its callbacks: "CHECK read_outside <body>". */
export function body_results_read(contextId: u32, type: i32): void {
  host.setEffectiveContext(contextId);
  host.log(LogLevel.Info, "CHECK read_outside " + readBody(type));
}

class BodyResultsStream extends HttpContext {
  requestResults: string = "";
  responseResults: string = "";
  requestCalls: i32 = 0;
  responseCalls: i32 = 0;
  trailersResult: i32 = HeadersAction.Continue;

  onRequestHeaders(numHeaders: u32, endOfStream: bool): i32 {
    const r = host.getHeaderValue(MapType.HttpRequestHeaders, "x-body-results");
    this.requestResults = r === null ? "" : r;
    const h = host.getHeaderValue(MapType.HttpRequestHeaders, "x-headers-result");
    return h === null ? HeadersAction.Continue : <i32>parseInt(h);
  }

  onRequestBody(bodySize: u32, endOfStream: bool): i32 {
    return this.body(BufferType.HttpRequestBody, "req_body", bodySize, this.requestResults, this.requestCalls++);
  }

  onRequestTrailers(numTrailers: u32): i32 {
    host.log(LogLevel.Info, "CHECK req_trailers_body " + readBody(BufferType.HttpRequestBody));
    return HeadersAction.Continue;
  }

  onResponseHeaders(numHeaders: u32, endOfStream: bool): i32 {
    const r = host.getHeaderValue(MapType.HttpResponseHeaders, "x-response-body-results");
    this.responseResults = r === null ? "" : r;
    const t = host.getHeaderValue(MapType.HttpResponseHeaders, "x-trailers-result");
    this.trailersResult = t === null ? HeadersAction.Continue : <i32>parseInt(t);
    const h = host.getHeaderValue(MapType.HttpResponseHeaders, "x-headers-result");
    return h === null ? HeadersAction.Continue : <i32>parseInt(h);
  }

  onResponseBody(bodySize: u32, endOfStream: bool): i32 {
    host.log(LogLevel.Info, "CHECK resp_body_end " + (endOfStream ? "true" : "false"));
    return this.body(BufferType.HttpResponseBody, "resp_body", bodySize, this.responseResults, this.responseCalls++);
  }

  /** Logs "CHECK resp_trailers <count>:<x-checksum>", adds x-plugin-saw (the checksum read) and returns what the
   *  response header x-trailers-result said (default Continue). */
  onResponseTrailers(numTrailers: u32): i32 {
    const sum = host.getHeaderValue(MapType.HttpResponseTrailers, "x-checksum");
    const seen = sum === null ? "<none>" : sum;
    host.log(LogLevel.Info, "CHECK resp_trailers " + numTrailers.toString() + ":" + seen);
    const value = String.UTF8.encode(seen);
    host.addHeaderValue(MapType.HttpResponseTrailers, new host.Utf8("x-plugin-saw"), changetype<usize>(value), <usize>value.byteLength);
    return this.trailersResult;
  }

  private body(type: i32, name: string, bodySize: u32, results: string, call: i32): i32 {
    const read = readBody(type);
    host.log(LogLevel.Info, "CHECK " + name + " " + bodySize.toString() + ":" + read);
    if (read == "rewrite") host.setBufferBytes(type, 0, bodySize, String.UTF8.encode("REWRITTEN"));
    const result = call < results.length ? <i32>parseInt(results.charAt(call)) : DataAction.Continue;
    if (result != 4) return result;
    host.continueStream(type == BufferType.HttpRequestBody ? StreamType.HttpRequest : StreamType.HttpResponse);
    host.log(LogLevel.Info, "CHECK " + name + "_after_continue " + readBody(type));
    return DataAction.Continue;
  }
}

class BodyResultsRoot extends RootContext {
  createHttpContext(id: u32): HttpContext {
    return new BodyResultsStream(id, this);
  }
}

setRootContextFactory((id: u32): RootContext => new BodyResultsRoot(id));
