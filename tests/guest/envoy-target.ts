// Stock Envoy build of the target fixture: the destination goes in the override_host policy's header.
export * from "../../assembly/abi/exports";
export * from "../../assembly/abi/abi-version";
import "../../assembly/abi/abort";
import * as host from "../../assembly/abi/host";
import { Utf8 } from "../../assembly/abi/host";
import { RootContext, setRootContextFactory } from "../../assembly/abi/context";
import { MapType } from "../../assembly/abi/types";
import { FixtureRoot } from "./target-stream";

const DESTINATION = new Utf8("x-gateway-destination-endpoint");

function destinationHeader(target: string): void {
  const b = String.UTF8.encode(target);
  host.replaceHeaderValue(MapType.HttpRequestHeaders, DESTINATION, changetype<usize>(b), b.byteLength);
}

setRootContextFactory((id: u32): RootContext => new FixtureRoot(id, destinationHeader));
