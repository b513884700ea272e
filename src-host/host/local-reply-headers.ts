// The response headers of a local reply, built as Envoy's http/utility.cc Utility::prepareLocalReply builds them
// for a non-gRPC request: ":status" first, then the filter's additional headers one addCopy each (wasm context.cc
// Context::sendLocalResponse's modify_headers; header_map_impl.cc insertByKey joins a repeated inline header to the
// first with ","), then the body decides: with one, content-length is set to its size (setContentLength: the inline
// entry keeps its place, its value replaced) and content-type defaults to text/plain (setReferenceContentType when
// absent); without one, both are removed.
import type { HeaderList } from "./header-map.ts";
import { RESPONSE_HEADERS_INLINE } from "./inline-headers.ts";
import { HeaderMap } from "./stream.ts";

export function localReplyHeaders(status: number, added: HeaderList, bodyLength: number): HeaderList {
  const map = new HeaderMap([[":status", String(status)]], RESPONSE_HEADERS_INLINE);
  for (let i = 0; i < added.length; i++) map.add(added[i][0], added[i][1]);
  if (bodyLength === 0) {
    map.remove("content-length");
    map.remove("content-type");
    return map.pairs;
  }
  const out = map.pairs.slice();
  const at = out.findIndex((pair) => pair[0] === "content-length");
  if (at >= 0) out[at] = ["content-length", String(bodyLength)];
  else out.push(["content-length", String(bodyLength)]);
  if (!out.some((pair) => pair[0] === "content-type")) out.push(["content-type", "text/plain"]);
  return out;
}
