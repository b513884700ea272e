// The stock-Envoy build: the configured endpoints, metrics polled with proxy_http_call, routing by the
// x-gateway-destination-endpoint header for the override_host load-balancing policy.
export * from "./abi/exports";
export * from "./abi/abi-version";
import "./abi/abort";
import { RootContext, setRootContextFactory } from "./abi/context";
import { PickerRoot } from "./picker/picker-root";
import { EnvoyPlatform } from "./platform/envoy-platform";
import { Platform } from "./core/platform";

setRootContextFactory((id: u32): RootContext => new PickerRoot(id, (ruleIndex: i32): Platform => new EnvoyPlatform()));
