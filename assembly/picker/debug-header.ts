// The x-endpoint-picker-debug response header (debug.header: true): the chosen endpoint and each
// candidate's signal scores and matched chunks (m). It names endpoints and numbers only, never request content.
import { Decision } from "./decide";
import { PickerState } from "../core/picker-state";

function fixed3(v: f64): string {
  if (!isFinite(v)) return "0";
  const scaled = <i64>Math.round(v * 1000);
  const whole = scaled / 1000;
  const frac = <i32>(abs(scaled) % 1000);
  const fracText = frac < 10 ? "00" + frac.toString() : frac < 100 ? "0" + frac.toString() : frac.toString();
  return (scaled < 0 && whole == 0 ? "-" : "") + whole.toString() + "." + fracText;
}

export function formatDebugHeader(state: PickerState, d: Decision): string {
  const s = state.scheduler;
  const c = state.candidates;
  const r = state.registry;
  let out = "endpoint=" + r.addressString(d.slot) + "; chain=" + d.chainLength.toString() + "; matched=" + d.matchedChunks.toString() + "; scores=";
  for (let i = 0; i < c.count; i++) {
    if (i > 0) out += ",";
    out += r.addressString(unchecked(c.slot[i])) + "{";
    if (!unchecked(c.healthy[i])) {
      out += "excluded}";
      continue;
    }
    out += "t=" + fixed3(unchecked(s.total[i]));
    out += " q=" + fixed3(unchecked(s.queueScore[i]));
    out += " kv=" + fixed3(unchecked(s.kvScore[i]));
    out += " p=" + fixed3(unchecked(s.prefixScore[i]));
    out += " i=" + fixed3(unchecked(s.inflightScore[i]));
    out += " m=" + unchecked(c.prefixMatched[i]).toString();
    if (s.weights.loraAffinity > 0) out += " l=" + fixed3(unchecked(s.loraScore[i]));
    if (s.weights.failure > 0) out += " f=" + fixed3(unchecked(s.failureScore[i]));
    if (s.weights.session > 0) out += " s=" + fixed3(unchecked(s.sessionScore[i]));
    if (unchecked(s.guarded[i])) out += " guarded";
    out += "}";
  }
  return out;
}
