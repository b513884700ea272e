// A test plugin that calls proxy_set_buffer_bytes where the test says and logs what it got. set_buffer_arm(start,
// length, char, count) arms one call for the next body callback: it writes `count` copies of `char` at (start, length)
// into the body it is the callback of and logs "CHECK set <status>:<body read after>". set_buffer_next_result(result)
// is what the next body callback returns (a FilterDataStatus; 4: it calls continue_stream, logs "CHECK after_continue
// <body read>", prepends "!" (logged as a set) and continues). set_buffer_call(contextId, type, start, length, char, count) makes the same call at
// once from the root context on that stream (as a timer or an HTTP call's callback would). Every body callback first
// logs "CHECK body <body read>"; get_buffer_call(contextId, type, start, length) logs "CHECK get <status>:<bytes>" and
// get_buffer_status_call(contextId, type) "CHECK status <size, or -1 when not Ok>". Its configure callback writes to
// the plugin configuration: "CHECK set_config <status>".
export * from "../../assembly/abi/higress-abi-version";
export * from "../../assembly/abi/abi-version";
export * from "../../assembly/abi/exports";
import "../../assembly/abi/abort";
import * as host from "../../assembly/abi/host";
import { HttpContext, RootContext, setRootContextFactory } from "../../assembly/abi/context";
import { BufferType, DataAction, LogLevel, StreamType } from "../../assembly/abi/types";

const out = new host.Returned();

let armed = false;
let armedStart: u32 = 0;
let armedLength: u32 = 0;
let armedChar: u32 = 0;
let armedCount: u32 = 0;
let nextResult: i32 = DataAction.Continue;

function readBody(type: i32): string {
  if (host.getBufferBytes(type, 0, 0xffffffff, out) != 0) return "<none>";
  const s = out.toString();
  out.release();
  return s;
}

function setBody(type: i32, start: u32, length: u32, char: u32, count: u32): void {
  const value = String.UTF8.encode(String.fromCharCode(<i32>char).repeat(<i32>count));
  const status = host.setBufferBytes(type, start, length, value);
  host.log(LogLevel.Info, "CHECK set " + status.toString() + ":" + readBody(type));
}

export function set_buffer_arm(start: u32, length: u32, char: u32, count: u32): void {
  armed = true;
  armedStart = start;
  armedLength = length;
  armedChar = char;
  armedCount = count;
}

export function set_buffer_next_result(result: i32): void {
  nextResult = result;
}

export function set_buffer_call(contextId: u32, type: i32, start: u32, length: u32, char: u32, count: u32): void {
  host.setEffectiveContext(contextId);
  setBody(type, start, length, char, count);
}

export function get_buffer_call(contextId: u32, type: i32, start: u32, length: u32): void {
  host.setEffectiveContext(contextId);
  const status = host.getBufferBytes(type, start, length, out);
  host.log(LogLevel.Info, "CHECK get " + status.toString() + ":" + (status == 0 ? out.toString() : ""));
  out.release();
}

export function get_buffer_status_call(contextId: u32, type: i32): void {
  host.setEffectiveContext(contextId);
  const size = host.getBufferSize(type);
  host.log(LogLevel.Info, "CHECK status " + size.toString());
}

/** continue_stream from the root context on that stream. */
export function set_buffer_continue(contextId: u32, streamType: i32): void {
  host.setEffectiveContext(contextId);
  host.continueStream(streamType);
}

class SetBufferStream extends HttpContext {
  onRequestBody(bodySize: u32, endOfStream: bool): i32 {
    return this.body(BufferType.HttpRequestBody);
  }

  onResponseBody(bodySize: u32, endOfStream: bool): i32 {
    return this.body(BufferType.HttpResponseBody);
  }

  private body(type: i32): i32 {
    host.log(LogLevel.Info, "CHECK body " + readBody(type));
    const result = nextResult;
    nextResult = DataAction.Continue;
    if (armed) {
      armed = false;
      setBody(type, armedStart, armedLength, armedChar, armedCount);
    }
    if (result != 4) return result;
    host.continueStream(type == BufferType.HttpRequestBody ? StreamType.HttpRequest : StreamType.HttpResponse);
    host.log(LogLevel.Info, "CHECK after_continue " + readBody(type));
    setBody(type, 0, 0, 0x21, 1);
    return DataAction.Continue;
  }
}

class SetBufferRoot extends RootContext {
  onConfigure(configSize: u32): bool {
    const status = host.setBufferBytes(BufferType.PluginConfiguration, 0, 0, String.UTF8.encode("x"));
    host.log(LogLevel.Info, "CHECK set_config " + status.toString());
    return true;
  }

  createHttpContext(id: u32): HttpContext {
    return new SetBufferStream(id, this);
  }
}

setRootContextFactory((id: u32): RootContext => new SetBufferRoot(id));
