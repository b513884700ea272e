// The endpoint that served a conversation's previous turn also holds the answer it generated: vLLM and SGLang
// cache the generated tokens' blocks as they cache the prompt's, and the next turn resends that answer right
// after the previous prompt. The index records only prompts, so without this it sees the previous turn's
// endpoint ahead by the chunks the user added, not by the answer too, and a small load difference moves the
// conversation to an endpoint that must prefill the answer again.
//
// Which endpoint served the previous turn: the only one whose match covers every chunk before the last
// assistant message (the previous prompt). With a tie (say a short turn that stays inside one chunk, so the
// endpoint of the turn before ties, or a first turn no longer than a preamble several endpoints hold) nobody is
// credited, unless the conversation's cross-worker hint names one of the tied endpoints; when it names an endpoint,
// only that one is. Nor is an answer shorter than a chunk: it saves less prefill than the chunk its credit adds
// whenever it crosses a chunk end, and on thrashing agent traffic (short tool calls, agentic-swarm) that extra pull
// towards a busy endpoint cost more than it saved.
import { chunksEndingBy } from "./chain";

/**
 * Credits the endpoint that served the previous turn with the chunks up to the end of the answer
 * [answerStart, answerEnd) (stream offsets), when the answer is at least minAnswerBytes long. matched[slot] is
 * each active endpoint's match in chunks; ends[i] is the stream offset just past chunk i, for i < chainLength.
 * previousTurnSlot is the endpoint the conversation's cross-worker hint says served the previous turn (-1: not
 * known): then it is the holder if it matches the longest, tie or not, and nobody otherwise. Returns the slot whose
 * match it raised, or -1.
 */
export function creditPreviousAnswer(
  matched: StaticArray<i32>, activeSlots: StaticArray<i32>, activeCount: i32,
  ends: StaticArray<u32>, chainLength: i32, answerStart: i32, answerEnd: i32, minAnswerBytes: i32,
  previousTurnSlot: i32 = -1,
): i32 {
  if (answerStart <= 0 || answerEnd - answerStart < max<i32>(minAnswerBytes, 1) || chainLength <= 0) return -1;
  const before = chunksEndingBy(ends, chainLength, answerStart);
  const through = chunksEndingBy(ends, chainLength, answerEnd);
  if (before == 0 || through <= before) return -1;
  const n = min<i32>(activeCount, activeSlots.length);
  let longest = 0;
  let holder = -1;
  let tied = false;
  let previousActive = false;
  for (let i = 0; i < n; i++) {
    const slot = unchecked(activeSlots[i]);
    if (<u32>slot >= <u32>matched.length) continue;
    if (slot == previousTurnSlot) previousActive = true;
    const m = unchecked(matched[slot]);
    if (m > longest) {
      longest = m;
      holder = slot;
      tied = false;
    } else if (m == longest && m > 0) {
      tied = true;
    }
  }
  if (<u32>previousTurnSlot < <u32>matched.length) {
    // The hint names the endpoint that served the previous turn: any other holds the prompt, not the answer.
    if (!previousActive || unchecked(matched[previousTurnSlot]) != longest) return -1;
    holder = previousTurnSlot;
    tied = false;
  }
  if (holder < 0 || tied || longest < before || longest >= through) return -1;
  unchecked((matched[holder] = through));
  return holder;
}
