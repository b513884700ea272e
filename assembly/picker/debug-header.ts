// The x-endpoint-picker-debug response header (debug.header: true): the chosen endpoint and each
// candidate's signal scores and matched chunks (m). It names endpoints and numbers only, never request content.
import { Decision } from "./decide";
import { PickerState } from "../core/picker-state";
import { Scheduler } from "../scheduling/scheduler";
import { Candidates } from "../scheduling/candidates";

function fixed3(v: f64): string {
  if (!isFinite(v)) return "0";
  const scaled = <i64>Math.round(v * 1000);
  const whole = scaled / 1000;
  const frac = <i32>(abs(scaled) % 1000);
  const fracText = frac < 10 ? "00" + frac.toString() : frac < 100 ? "0" + frac.toString() : frac.toString();
  return (scaled < 0 && whole == 0 ? "-" : "") + whole.toString() + "." + fracText;
}

/** "t=... q=... kv=... p=... i=... m=..." of candidate i after s picked among c: the total, the always-shown
 *  scorers' columns, the matched chunks, then the columns of the other scorers that carry weight. */
export function candidateScores(s: Scheduler, c: Candidates, i: i32): string {
  // A pick that deferred the per-scorer scores (Scheduler.deferScores) left them unwritten: write them first, so this
  // reader does not depend on deferScores being set from the same debug.header setting (picker-state.ts).
  s.fillScores(c);
  let out = "t=" + fixed3(unchecked(s.total[i]));
  for (let k = 0; k < s.scorers.length; k++) {
    const scorer = s.scorers[k];
    if (scorer.alwaysShown) out += " " + scorer.column + "=" + fixed3(unchecked(scorer.score[i]));
  }
  out += " m=" + unchecked(c.prefixMatched[i]).toString();
  for (let k = 0; k < s.scorers.length; k++) {
    const scorer = s.scorers[k];
    if (!scorer.alwaysShown && scorer.weight > 0) out += " " + scorer.column + "=" + fixed3(unchecked(scorer.score[i]));
  }
  return out;
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
    out += candidateScores(s, c, i);
    if (unchecked(s.guarded[i])) out += " guarded";
    out += "}";
  }
  return out;
}
