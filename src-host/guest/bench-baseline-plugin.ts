// Baseline for the decision-cost bench (src-host/bench/decision-cost.ts): a proxy-wasm plugin built like the
// picker (same ABI layer, runtime and release flags) that does no work of its own. With the plugin
// configuration "read-body" it also copies the whole request body into linear memory at the end of the
// stream, as the picker must, and frees it; any other configuration leaves every callback empty.
export * from "../../assembly/abi/exports";
export * from "../../assembly/abi/higress-abi-version";
import "../../assembly/abi/abort";
import { HttpContext, RootContext, setRootContextFactory } from "../../assembly/abi/context";
import { getBufferBytes, Returned } from "../../assembly/abi/host";
import { BufferType, DataAction, Status } from "../../assembly/abi/types";

class BaselineRoot extends RootContext {
  readBody: bool = false;
  /** The buffer a callback reads into (released before it returns), as the picker's root owns one. */
  readonly scratch: Returned = new Returned();

  onConfigure(configSize: u32): bool {
    if (configSize > 0 && getBufferBytes(BufferType.PluginConfiguration, 0, configSize, this.scratch) == Status.Ok) {
      this.readBody = this.scratch.toString() == "read-body";
      this.scratch.release();
    }
    return true;
  }

  createHttpContext(id: u32): HttpContext {
    return new BaselineStream(id, this);
  }
}

class BaselineStream extends HttpContext {
  onRequestBody(bodySize: u32, endOfStream: bool): i32 {
    const root = <BaselineRoot>this.root;
    if (endOfStream && root.readBody && bodySize > 0) {
      if (getBufferBytes(BufferType.HttpRequestBody, 0, bodySize, root.scratch) == Status.Ok) root.scratch.release();
    }
    return DataAction.Continue;
  }
}

setRootContextFactory((id: u32): RootContext => new BaselineRoot(id));
