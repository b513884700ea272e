// The Higress build: hosts and metrics from proxy_get_upstream_hosts, routing by
// proxy_set_upstream_override_host.
export * from "./abi/exports";
export * from "./abi/higress-abi-version";
export { proxy_on_redis_call_response } from "./abi/redis-exports";
import "./abi/abort";
import { RootContext, setRootContextFactory } from "./abi/context";
import { PickerRoot } from "./picker/picker-root";
import { HigressPlatform } from "./platform/higress-platform";
import { Platform } from "./core/platform";

setRootContextFactory((id: u32): RootContext => new PickerRoot(id, (ruleIndex: i32): Platform => new HigressPlatform()));
