// A number unique to this VM within the Envoy process, from a counter in shared data (compare-and-swap).
// Workers start at the same moment and may see the same clock, so the clock alone cannot tell them apart:
// the token seeds each worker's tie-breaking differently and names the holder of the polling lease.
import { getSharedData, setSharedData, SharedValue, Utf8 } from "../abi/host";
import { Status } from "../abi/types";

const SEQUENCE_KEY = new Utf8("endpoint_picker/worker_sequence");
const SEQUENCE_VALUE: usize = memory.data(8);

/** Takes the next token (1, 2, ...), or 0 when shared data is unavailable. */
export function takeWorkerToken(): u64 {
  const current = new SharedValue(); // once per configuration, not per request
  for (let attempt = 0; attempt < 16; attempt++) {
    let next: u64 = 1;
    let cas: u32 = 0;
    if (getSharedData(SEQUENCE_KEY, current) == Status.Ok) {
      if (current.len >= 8) next = load<u64>(current.ptr) + 1;
      cas = current.cas;
      current.release();
    }
    store<u64>(SEQUENCE_VALUE, next);
    if (setSharedData(SEQUENCE_KEY, SEQUENCE_VALUE, 8, cas) == Status.Ok) return next;
  }
  return 0;
}
