// The gateway's answer to a request its HTTP/1 parser refused, as Envoy's codec answers it (host/http1-codec-error.ts):
// 400 "Bad Request" with details http1.codec_error (or the codec's own check's status and details) and the flag
// DownstreamProtocolError, run through a plugin stream
// created for it (FilterManager::sendLocalReplyViaFilterChain → createFilterChain: the plugin gets on_log), and
// "connection: close" (conn_manager_impl.cc ActiveStream::encodeHeaders: a response before the request completed on
// HTTP/1 drains the connection), then the connection closes. Node's parser (llhttp) names its errors as http-parser
// and Envoy's BalsaParser do: a Content-Length given twice is HPE_UNEXPECTED_CONTENT_LENGTH in each.
import type { Socket } from "node:net";
import type { PluginHost } from "../host/plugin-host.ts";
import type { StreamInfo } from "../host/stream.ts";
import type { HeaderList } from "../host/header-map.ts";
import { localReplyHeaders } from "../host/local-reply-headers.ts";
import { HTTP1_CHUNKED_CONTENT_LENGTH, HTTP1_CODEC_ERROR, type Http1CodecRefusal } from "../host/http1-codec-error.ts";
import type { RequestRecord } from "./request-log.ts";

const enc = new TextEncoder();

/** Node's parse errors in a request's headers that Envoy's codec answers with sendProtocolError's 400: not its 431
 *  for oversized headers, nor the end of the connection in the middle of a request (HPE_INVALID_EOF_STATE), which
 *  Envoy takes as the client's close (ConnectionManagerImpl::onEvent RemoteClose), not as a parse error. */
export function isCodecError(code: string | undefined): boolean {
  return code !== undefined && code.startsWith("HPE_") && code !== "HPE_HEADER_OVERFLOW" && code !== "HPE_INVALID_EOF_STATE";
}

/**
 * Envoy's answer to the request Node's parser refused with `code` and `reason`: Node refuses a Content-Length beside a
 * Transfer-Encoding as a parse error (HPE_INVALID_CONTENT_LENGTH or HPE_INVALID_TRANSFER_ENCODING, by the fields'
 * order, "... can't be present with ..."); Envoy's parser takes both and its codec answers them itself
 * (http1-codec-error.ts). Any other refusal is a parse error's.
 */
export function codecRefusal(code: string | undefined, reason: string | undefined): Http1CodecRefusal {
  const framing = code === "HPE_INVALID_CONTENT_LENGTH" || code === "HPE_INVALID_TRANSFER_ENCODING";
  return framing && reason?.includes("can't be present with") ? HTTP1_CHUNKED_CONTENT_LENGTH : HTTP1_CODEC_ERROR;
}

/** Answers the refused request on `socket` as `refusal` says and returns its access-log record. */
export function answerCodecError(host: PluginHost | null, worker: number, info: StreamInfo, id: number, socket: Socket, bytesIn: number, refusal: Http1CodecRefusal = HTTP1_CODEC_ERROR): RequestRecord {
  const started = performance.now();
  let headers: HeaderList;
  let body: Uint8Array;
  const stream = host ? host.newStream(info, worker) : null;
  if (stream) {
    stream.rejectByCodec(refusal);
    headers = stream.state.responseHeaders?.pairs ?? [];
    body = stream.takeReleasedResponseBody();
  } else {
    body = enc.encode(refusal.text);
    headers = localReplyHeaders(refusal.status, [], body.length);
  }
  let head = `HTTP/1.1 ${refusal.status} ${refusal.text}\r\n`;
  for (const [k, v] of headers) if (!k.startsWith(":") && k !== "connection") head += `${k}: ${v}\r\n`;
  head += `date: ${new Date().toUTCString()}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), body]));
  stream?.finish();
  return {
    id,
    worker: host ? worker : null,
    method: "-",
    path: "-",
    status: refusal.status,
    flags: "DPE",
    details: refusal.details,
    endpoint: null,
    route: null,
    fallback: null,
    ttftMs: null,
    durMs: performance.now() - started,
    bytesIn,
    bytesOut: body.length,
  };
}
