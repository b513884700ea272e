// What Envoy's router makes of an upstream connection that failed or broke: the stream reset reason, the response flag
// it sets (router.cc Filter::streamResetReasonToResponseFlag) and the body of its 503 (Filter::onUpstreamReset).

export interface UpstreamReset {
  /** The access log's flag: "UF" (UpstreamConnectionFailure) or "UC" (UpstreamConnectionTermination). */
  flags: "UF" | "UC";
  /** The local reply's body when no response headers went downstream yet. */
  body: string;
}

/**
 * A connect that failed is RemoteConnectionFailure (conn_pool_base.cc: the pool's connection closed before it
 * connected), with connection_impl.cc's transport failure reason "delayed connect error: <errno>"; a connection lost
 * once open, before or after the response started, is ConnectionTermination (http1 codec_impl.cc onResetStream on
 * the connection's close). utility.cc Utility::resetReasonToString names each.
 */
export function upstreamReset(e: Error | null): UpstreamReset {
  const err = e as NodeJS.ErrnoException | null;
  if (err?.syscall === "connect") {
    const errno = typeof err.errno === "number" ? Math.abs(err.errno) : err.code;
    return { flags: "UF", body: `${BODY_PREFIX}remote connection failure, transport failure reason: delayed connect error: ${errno}` };
  }
  return { flags: "UC", body: `${BODY_PREFIX}connection termination` };
}

const BODY_PREFIX = "upstream connect error or disconnect/reset before headers. reset reason: ";
