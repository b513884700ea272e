// What Envoy's router makes of an upstream connection that failed or broke: the stream reset reason, the response flag
// it sets (router.cc Filter::streamResetReasonToResponseFlag), the body of its 503 and its response code details
// (Filter::onUpstreamReset: "upstream_reset_before_response_started{<reason>|<transport failure reason>}", or
// "upstream_reset_after_response_started{...}" once the router passed the response headers on
// (downstream_response_started_, set by Filter::onUpstreamHeaders), spaces made underscores by
// StringUtil::replaceAllEmptySpace). The 503 goes out only while no response headers reached the client; after that
// the downstream stream is reset, the details set all the same (filter_manager.cc DownstreamFilterManager::sendLocalReply
// sets them before it chooses).

export interface UpstreamReset {
  /** The access log's flag: "UF" (UpstreamConnectionFailure) or "UC" (UpstreamConnectionTermination). */
  flags: "UF" | "UC";
  /** The local reply's body when no response headers went downstream yet. */
  body: string;
  /** The stream's response code details (`response.code_details`). */
  details: string;
}

/** Linux ECONNREFUSED: the answer of a pod whose server is not listening (down, or gone with its address). */
export const ECONNREFUSED = 111;

/**
 * A connect that failed is RemoteConnectionFailure (conn_pool_base.cc: the pool's connection closed before it
 * connected), with connection_impl.cc's transport failure reason "delayed connect error: <errno>"; a connection lost
 * once open, before or after the response started, is ConnectionTermination (http1 codec_impl.cc onResetStream on
 * the connection's close). utility.cc Utility::resetReasonToString names each.
 */
export function upstreamReset(e: Error | null, responseStarted = false): UpstreamReset {
  const err = e as NodeJS.ErrnoException | null;
  if (err?.syscall === "connect") return connectFailure(typeof err.errno === "number" ? Math.abs(err.errno) : err.code ?? "");
  return connectionTermination(responseStarted);
}

export function connectFailure(errno: number | string): UpstreamReset {
  return reset("UF", "remote connection failure", `delayed connect error: ${errno}`, false);
}

/** `responseStarted`: the router had passed the response headers on (they may still be held by a filter). */
export function connectionTermination(responseStarted = false): UpstreamReset {
  return reset("UC", "connection termination", "", responseStarted);
}

function reset(flags: UpstreamReset["flags"], reason: string, transportFailure: string, responseStarted: boolean): UpstreamReset {
  const transport = transportFailure === "" ? "" : `, transport failure reason: ${transportFailure}`;
  // stream_info.h ResponseCodeDetailValues EarlyUpstreamReset / LateUpstreamReset.
  const basic = responseStarted ? "upstream_reset_after_response_started" : "upstream_reset_before_response_started";
  const details = `${basic}{${reason}${transportFailure === "" ? "" : `|${transportFailure}`}}`;
  return { flags, body: `${BODY_PREFIX}${reason}${transport}`, details: details.replace(/\s/g, "_") };
}

const BODY_PREFIX = "upstream connect error or disconnect/reset before headers. reset reason: ";
