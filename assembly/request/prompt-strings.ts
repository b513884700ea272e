// The strings of a completions prompt array: text (GS text)*. Token ids (numbers or nested arrays) cannot
// be written as text and halt with TokenArray.
import { JsonScanner, JsonToken } from "../json/scanner";
import { EmitCore, EmitHalt } from "./emit-core";
import { GS } from "./stream-format";

/** Prompt strings of the array whose ArrStart sc just returned (the record head is written). */
export function writePromptStrings(core: EmitCore, sc: JsonScanner): void {
  const w = core.writer;
  let first = true;
  while (true) {
    const mark = w.len;
    const markFull = w.full;
    if (!first) w.byte(GS);
    const t = w.nextDecoded(sc);
    if (t == JsonToken.ArrEnd) {
      w.truncate(mark, markFull);
      return;
    }
    if (!core.ok(t)) return;
    if (t == JsonToken.Number || t == JsonToken.ArrStart) {
      core.halt = EmitHalt.TokenArray;
      return;
    }
    first = false;
    core.inlineValue(sc, t);
    if (core.stopped()) return;
  }
}
