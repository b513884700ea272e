// What a stream works with during one host callback and is done with before the callback returns: the body and
// header buffers the host hands back, the request gate and the decision. One set per worker, owned by the root
// and passed down explicitly: callbacks never nest, and anything that must outlive a callback (the lease, the
// announced length, the debug text) is copied into the stream's own fields, so interleaved streams never see
// each other's results. Preallocated once, so a request allocates nothing here.
import { Returned } from "../abi/memory";
import { Decision } from "./decide";
import { RequestGate } from "./request-gate";

export class CallbackScratch {
  /** The request body while it is decided on (freed right after the decision). */
  readonly body: Returned = new Returned();
  /** One header value while it is read (released at once). */
  readonly header: Returned = new Returned();
  readonly gate: RequestGate = new RequestGate();
  readonly decision: Decision = new Decision();
  /** The salt header's hash (8 bytes), which seeds the chunk-hash chain. */
  readonly saltHash: usize = heap.alloc(8);
}
