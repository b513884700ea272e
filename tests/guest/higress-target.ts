// Higress build of the target fixture: the destination goes through proxy_set_upstream_override_host.
export * from "../../assembly/abi/exports";
export * from "../../assembly/abi/higress-abi-version";
import "../../assembly/abi/abort";
import { proxy_set_upstream_override_host } from "../../assembly/abi/higress-imports";
import { RootContext, setRootContextFactory } from "../../assembly/abi/context";
import { FixtureRoot } from "./target-stream";

function overrideHost(target: string): void {
  const b = String.UTF8.encode(target);
  proxy_set_upstream_override_host(changetype<usize>(b), b.byteLength);
}

/** proxy_set_upstream_override_host from the context that is current, for the test: its status. */
export function override_host_status(): i32 {
  const b = String.UTF8.encode("10.0.0.1:8000");
  return proxy_set_upstream_override_host(changetype<usize>(b), b.byteLength);
}

setRootContextFactory((id: u32): RootContext => new FixtureRoot(id, overrideHost));
