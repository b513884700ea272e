// The block loop's reference check, shared by the decoder specs: nextDecoded on a document's first element must write
// what decodeJsonString writes for it (or fail where next() does), and nothing past the cap.
import { JsonScanner, JsonToken } from "../../../assembly/json/scanner";
import { decodeJsonString, decodedBytes, stoppedAtCap } from "../../../assembly/json/string-decoder";

// Made once: decodesAlike allocates nothing, so a document placed at the end of memory stays there.
const a = new JsonScanner(4);
const b = new JsonScanner(4);

/** 1 when they agree; `span` bytes of each output buffer are filled alike first and compared past the cap. */
export function decodesAlike(doc: usize, len: usize, outA: usize, outB: usize, cap: i32, flags: i32, span: i32): i32 {
  a.reset(doc, len, 100);
  b.reset(doc, len, 100);
  if (a.next() != JsonToken.ArrStart || b.next() != JsonToken.ArrStart) return 0;
  // Bytes past what is decoded may be written: fill both the same to compare everything in reach.
  memory.fill(outA, 0xaa, <usize>span);
  memory.fill(outB, 0xaa, <usize>span);
  const ta = a.nextDecoded(outA, cap, flags);
  const tb = b.next();
  if (ta != tb) return 0;
  if (ta != JsonToken.String) return a.pos == b.pos ? 1 : 0;
  const r = decodeJsonString(b.start, b.end, outB, cap, flags);
  const n = decodedBytes(r);
  if (a.decodedLen != n || memory.compare(outA, outB, <usize>n) != 0 || a.decodeFilled != stoppedAtCap(r)) return 0;
  if (a.start != b.start || a.end != b.end || a.hasEscapes != b.hasEscapes || a.pos != b.pos) return 0;
  // Nothing written past the cap.
  for (let k = max(cap, 0); k < span; k++) if (load<u8>(outA + <usize>k) != 0xaa) return 0;
  if (a.next() != JsonToken.Number || a.next() != JsonToken.ArrEnd) return 0;
  return 1;
}
