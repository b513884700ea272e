// The previous turn's answer: the extractor finds where the last assistant message lies in the stream, and
// creditPreviousAnswer credits it to the one endpoint that holds the whole previous prompt.
import { ExtractStatus, RequestExtractor } from "../../assembly/request/extract";
import { ChainHasher, chainSeed } from "../../assembly/prefix/chain";
import { creditPreviousAnswer } from "../../assembly/prefix/answer-credit";

const ex = new RequestExtractor(1 << 16, 64);
const chain = new ChainHasher(256);
let held: ArrayBuffer = new ArrayBuffer(0);

const SYSTEM = "You are a careful assistant that answers questions about the documents it is given, briefly.";
const FIRST = ',{"role":"user","content":"What does the report cover, and for which quarter of the year?"}';
const ANSWER = ',{"role":"assistant","content":"The report covers the third quarter and lists four risks, the first of which is currency exposure."}';
const SECOND = ',{"role":"user","content":"Which of the four risks is the largest, and why?"}';

function extract(body: string): void {
  held = String.UTF8.encode(body);
  expect<i32>(ex.extract(changetype<usize>(held), <usize>held.byteLength, 1000000)).toBe(ExtractStatus.Ok);
  expect<bool>(ex.prefixUsable).toBe(true);
}

function conversation(rest: string): string {
  return '{"model":"m","messages":[{"role":"system","content":"' + SYSTEM + '"}' + rest + "]}";
}

function streamText(from: i32, to: i32): string {
  return String.UTF8.decodeUnsafe(ex.streamPtr + <usize>from, <usize>(to - from));
}

function chainOf(chunkChars: i32): i32 {
  return chain.build(ex.streamPtr, <usize>ex.streamLen, chunkChars, chainSeed(ex.modelPtr, <usize>ex.modelLen, 0, 0));
}

function slots(list: i32[]): StaticArray<i32> {
  const out = new StaticArray<i32>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = list[i];
  return out;
}

describe("lastAssistantStart / lastAssistantEnd", () => {
  it("span the last whole assistant message, which starts where the previous turn's stream ended", () => {
    extract(conversation(FIRST));
    expect<i32>(ex.lastAssistantEnd).toBe(-1);
    const previous = ex.streamLen;
    const previousText = streamText(0, previous);
    extract(conversation(FIRST + ANSWER + SECOND));
    expect<i32>(ex.lastAssistantStart).toBe(previous);
    expect<string>(streamText(0, previous)).toBe(previousText);
    const answer = streamText(ex.lastAssistantStart, ex.lastAssistantEnd);
    expect<bool>(answer.startsWith("\x1eassistant\x1f")).toBe(true);
    expect<bool>(answer.endsWith("currency exposure.")).toBe(true);
    expect<bool>(ex.lastAssistantEnd < ex.streamLen).toBe(true);
  });

  it("is the last of several, counts sections written in front, and ignores other roles", () => {
    const later = ',{"role":"assistant","content":"Currency exposure, because half the revenue is in euros."}';
    extract(conversation(FIRST + ANSWER + SECOND + later));
    expect<bool>(streamText(ex.lastAssistantStart, ex.lastAssistantEnd).endsWith("in euros.")).toBe(true);
    expect<i32>(ex.lastAssistantEnd).toBe(ex.streamLen);
    extract('{"messages":[{"content":"hi","role":"user"},{"role":"assistant","content":"hello"}],"model":"m","tools":[{"type":"function"}]}');
    expect<bool>(streamText(0, ex.lastAssistantStart).includes("function")).toBe(true); // the tools come before the conversation
    expect<string>(streamText(ex.lastAssistantStart, ex.lastAssistantEnd)).toBe("\x1eassistant\x1fhello");
    extract('{"model":"m","messages":[{"role":"assistants","content":"no"},{"role":"user","content":"me"}]}');
    expect<i32>(ex.lastAssistantStart).toBe(-1);
    expect<i32>(ex.lastAssistantEnd).toBe(-1);
  });

  it("covers an assistant message whose content comes before its role, with tool calls", () => {
    extract('{"model":"m","messages":[{"role":"user","content":"list files"},{"content":null,"role":"assistant","tool_calls":[{"id":"1"}]},{"role":"tool","tool_call_id":"1","content":"a.txt"}]}');
    const answer = streamText(ex.lastAssistantStart, ex.lastAssistantEnd);
    expect<bool>(answer.startsWith("\x1eassistant\x1f")).toBe(true);
    expect<bool>(answer.includes("tool_calls")).toBe(true);
    expect<bool>(streamText(ex.lastAssistantEnd, ex.streamLen).includes("a.txt")).toBe(true);
  });
});

describe("creditPreviousAnswer", () => {
  it("credits the one endpoint holding the whole previous prompt with the chunks through the answer", () => {
    extract(conversation(FIRST + ANSWER + SECOND));
    const n = chainOf(16);
    const before = 0 + ex.lastAssistantStart / 16; // about: chunks are 16 characters, the stream is ASCII here
    const matched = new StaticArray<i32>(4);
    matched[0] = 2; // the system prompt only
    matched[1] = before; // the previous turn
    matched[2] = 3;
    const credited = creditPreviousAnswer(matched, slots([0, 1, 2]), 3, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, 16);
    expect<i32>(credited).toBe(1);
    expect<i32>(matched[1]).toBe(ex.lastAssistantEnd / 16);
    expect<bool>(matched[1] < n).toBe(true); // the new question is not credited
    expect<i32>(matched[0]).toBe(2);
    expect<i32>(matched[2]).toBe(3);
  });

  it("credits nobody on a tie, short of the previous prompt, or without an answer past a chunk end", () => {
    extract(conversation(FIRST + ANSWER + SECOND));
    const n = chainOf(16);
    const before = ex.lastAssistantStart / 16;
    const matched = new StaticArray<i32>(4);
    matched[0] = before;
    matched[1] = before;
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1]), 2, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, 16)).toBe(-1);
    expect<i32>(matched[0]).toBe(before);
    matched[1] = before - 1;
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1]), 2, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, 16)).toBe(0);
    matched[0] = before - 1;
    matched[1] = before - 2;
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1]), 2, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, 16)).toBe(-1);
    expect<i32>(matched[0]).toBe(before - 1);
    // An answer inside one chunk adds no whole chunk: nothing to credit.
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1]), 2, chain.ends, n, 17, 30, 1)).toBe(-1);
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1]), 2, chain.ends, n, -1, -1, 1)).toBe(-1);
  });

  it("breaks a tie for the endpoint the conversation's hint says served the previous turn", () => {
    extract(conversation(FIRST + ANSWER + SECOND));
    const n = chainOf(16);
    const before = ex.lastAssistantStart / 16;
    const matched = new StaticArray<i32>(4);
    matched[0] = before;
    matched[1] = before;
    matched[2] = before;
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1, 2]), 3, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, 16, 1)).toBe(1);
    expect<i32>(matched[1]).toBe(ex.lastAssistantEnd / 16);
    expect<i32>(matched[0]).toBe(before);
    matched[1] = before;
    matched[3] = before;
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1, 2]), 3, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, 16, 3))
      .toBe(-1, "not an active endpoint");
    matched[2] = before - 1;
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1, 2]), 3, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, 16, 2))
      .toBe(-1, "not one of the tied endpoints");
    matched[0] = before;
    matched[1] = before - 1;
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1]), 2, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, 16, 1))
      .toBe(-1, "the hint says endpoint 1 served the previous turn: endpoint 0 holds only its prompt");
  });

  it("credits no answer shorter than minAnswerBytes (less prefill than the chunk it would add)", () => {
    extract(conversation(FIRST + ANSWER + SECOND));
    const n = chainOf(16);
    const before = ex.lastAssistantStart / 16;
    const length = ex.lastAssistantEnd - ex.lastAssistantStart;
    const matched = new StaticArray<i32>(2);
    matched[0] = before;
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1]), 2, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, length + 1)).toBe(-1);
    expect<i32>(matched[0]).toBe(before);
    expect<i32>(creditPreviousAnswer(matched, slots([0, 1]), 2, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, length)).toBe(0);
    expect<bool>(matched[0] > before).toBe(true);
  });

  it("leaves a longer match as it is and skips slots outside the array", () => {
    extract(conversation(FIRST + ANSWER + SECOND));
    const n = chainOf(16);
    const matched = new StaticArray<i32>(2);
    matched[1] = n; // already holds everything (the same request again)
    expect<i32>(creditPreviousAnswer(matched, slots([7, -1, 0, 1]), 4, chain.ends, n, ex.lastAssistantStart, ex.lastAssistantEnd, 16)).toBe(-1);
    expect<i32>(matched[1]).toBe(n);
    expect<i32>(creditPreviousAnswer(matched, slots([1]), 5, chain.ends, 0, ex.lastAssistantStart, ex.lastAssistantEnd, 16)).toBe(-1);
  });
});
