// How a fail-open is reported: counted (endpoint_picker.fallback.<reason>) and named in the stream's
// `endpoint_picker.fallback` property, for access logs. The request itself goes on to the gateway's own
// load balancer.
import { setProperty } from "../abi/host";
import { FALLBACK_NAMES } from "../core/fallback";
import { Telemetry } from "../core/telemetry";

const FALLBACK_PROPERTY = String.UTF8.encode("endpoint_picker.fallback");
/** The fallback names as UTF-8, encoded once so a fail-open allocates nothing. */
const FALLBACK_NAME_BYTES: StaticArray<ArrayBuffer> = encodeAll(FALLBACK_NAMES);

function encodeAll(names: StaticArray<string>): StaticArray<ArrayBuffer> {
  const out = new StaticArray<ArrayBuffer>(names.length);
  for (let i = 0; i < names.length; i++) out[i] = String.UTF8.encode(names[i]);
  return out;
}

export function reportFailOpen(telemetry: Telemetry, reason: i32): void {
  telemetry.fallback(reason);
  setProperty(FALLBACK_PROPERTY, FALLBACK_NAME_BYTES[reason]);
}
