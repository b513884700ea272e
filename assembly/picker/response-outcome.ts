// What a routed request's end says about the endpoint it was sent to, for its failure EWMA. Envoy answers every
// upstream failure before the response starts with a local reply that runs through this filter (router.cc
// Filter::onUpstreamAbort: 503 on a reset or refused connection, 504 on a timeout), so a stream that ends without
// response headers was left by its client (or cut by the gateway itself): that says nothing of the endpoint.
import { getProperty, propertyPath, Returned } from "../abi/host";
import { Status } from "../abi/types";
import { addressHash, EndpointRegistry } from "../endpoints/endpoint-registry";

export const enum Outcome {
  /** Nothing to record. */
  Unknown = 0,
  Succeeded = 1,
  Failed = 2,
}

const UPSTREAM_ADDRESS = propertyPath(["upstream", "address"]);
const RESPONSE_FLAGS = propertyPath(["response", "flags"]);

// envoy stream_info.h ResponseFlag: the bits `response.flags` carries (later Envoys keep them as legacyResponseFlags())
// that say the upstream failed. router.cc streamResetReasonToResponseFlag sets one when the upstream resets after the
// response started; the downstream stream is then reset, so the response never ends.
const UPSTREAM_REQUEST_TIMEOUT: i64 = 0x4;
const UPSTREAM_REMOTE_RESET: i64 = 0x10;
const UPSTREAM_CONNECTION_FAILURE: i64 = 0x20;
const UPSTREAM_CONNECTION_TERMINATION: i64 = 0x40;
const UPSTREAM_PROTOCOL_ERROR: i64 = 0x800000;
const UPSTREAM_FAILED: i64 = UPSTREAM_REQUEST_TIMEOUT | UPSTREAM_REMOTE_RESET | UPSTREAM_CONNECTION_FAILURE |
  UPSTREAM_CONNECTION_TERMINATION | UPSTREAM_PROTOCOL_ERROR;

/**
 * Whether `upstream.address` (the host of the attempt that answered) is another tracked endpoint than `slot`. A retry
 * never reuses the override (router.h overrideHostToSelect returns none on a retry; the override_host policy falls
 * back once its listed hosts are used), and Higress's override is refused for an unhealthy host: then the endpoint
 * the picker chose did not serve. An address the registry does not track (another spelling) proves nothing.
 */
export function servedByAnotherEndpoint(registry: EndpointRegistry, slot: i32, scratch: Returned): bool {
  if (getProperty(UPSTREAM_ADDRESS, scratch) != Status.Ok) return false;
  const served = registry.lookup(addressHash(scratch.ptr, scratch.len), scratch.ptr, scratch.len);
  scratch.release();
  return served >= 0 && served != slot;
}

/** Whether the stream's response flags name an upstream failure (read once the stream has ended). */
export function upstreamFailed(scratch: Returned): bool {
  if (getProperty(RESPONSE_FLAGS, scratch) != Status.Ok) return false;
  const flags: i64 = scratch.len >= 8 ? load<i64>(scratch.ptr) : 0;
  scratch.release();
  return (flags & UPSTREAM_FAILED) != 0;
}

/**
 * The outcome of a request from its response `status` (0: no response headers), whether another endpoint served it,
 * and whether its response reached its end. A response cut before its end failed when an upstream reset or timeout
 * cut it, and succeeded when its client left (the endpoint was answering).
 */
export function responseOutcome(status: i32, servedElsewhere: bool, responseEnded: bool, scratch: Returned): Outcome {
  if (servedElsewhere) return Outcome.Failed;
  if (status == 0) return Outcome.Unknown;
  if (status >= 500) return Outcome.Failed;
  if (!responseEnded && upstreamFailed(scratch)) return Outcome.Failed;
  return Outcome.Succeeded;
}
