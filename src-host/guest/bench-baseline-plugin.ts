// Baseline for the decision-cost bench (src-host/bench/decision-cost.ts): a proxy-wasm plugin built like the
// picker (same ABI layer, runtime and release flags) that does no work of its own. With the plugin
// configuration "read-body" it also copies the whole request body into linear memory at the end of the
// stream, as the picker must, and frees it; any other configuration leaves every callback empty.
export * from "../../assembly/abi/exports";
import "../../assembly/abi/abort";
import { HttpContext, RootContext, setRootContextFactory } from "../../assembly/abi/context";
import { getBufferBytes, returned } from "../../assembly/abi/host";
import { BufferType, DataAction, Status } from "../../assembly/abi/types";

class BaselineRoot extends RootContext {
  readBody: bool = false;

  onConfigure(configSize: u32): bool {
    if (configSize > 0 && getBufferBytes(BufferType.PluginConfiguration, 0, configSize) == Status.Ok) {
      this.readBody = returned.toString() == "read-body";
      returned.release();
    }
    return true;
  }

  createHttpContext(id: u32): HttpContext {
    return new BaselineStream(id, this);
  }
}

class BaselineStream extends HttpContext {
  onRequestBody(bodySize: u32, endOfStream: bool): i32 {
    if (endOfStream && (<BaselineRoot>this.root).readBody && bodySize > 0) {
      if (getBufferBytes(BufferType.HttpRequestBody, 0, bodySize) == Status.Ok) returned.release();
    }
    return DataAction.Continue;
  }
}

setRootContextFactory((id: u32): RootContext => new BaselineRoot(id));
