// A conversation's key: the stream offset past its first user message (extract.ts firstUserEnd) is the same in every
// turn, and conversationKey hashes the stream up to it, so every turn of one conversation has the same key.
import { ExtractStatus, RequestExtractor } from "../../assembly/request/extract";
import { ChainHasher, chainSeed } from "../../assembly/prefix/chain";
import { CONVERSATION_KEY_MAX_BYTES, conversationKey } from "../../assembly/prefix/conversation-tail";

const ex = new RequestExtractor(1 << 16, 64);
const chain = new ChainHasher(256);
let held: ArrayBuffer = new ArrayBuffer(0);

const SYSTEM = "You are a careful assistant that answers questions about the documents it is given, briefly.";

function extract(body: string): void {
  held = String.UTF8.encode(body);
  expect<i32>(ex.extract(changetype<usize>(held), <usize>held.byteLength, 1000000)).toBe(ExtractStatus.Ok);
  expect<bool>(ex.prefixUsable).toBe(true);
}

function streamText(from: i32, to: i32): string {
  return String.UTF8.decodeUnsafe(ex.streamPtr + <usize>from, <usize>(to - from));
}

/** The key of the body just extracted, with chunks of chunkChars characters. */
function keyOf(chunkChars: i32): u64 {
  const seed = chainSeed(ex.modelPtr, <usize>ex.modelLen, 0, 0);
  const n = chain.build(ex.streamPtr, <usize>ex.streamLen, chunkChars, seed);
  return conversationKey(ex.streamPtr, ex.firstUserEnd, chain.ends, chain.hashes, n, seed);
}

function turn(firstQuestion: string, later: string): string {
  return '{"model":"m","messages":[{"role":"system","content":"' + SYSTEM + '"},{"role":"user","content":"' +
    firstQuestion + '"}' + later + "]}";
}

const ANSWER = ',{"role":"assistant","content":"The report covers the third quarter and lists four risks."}';
const SECOND = ',{"role":"user","content":"Which of the four risks is the largest, and why?"}';

describe("firstUserEnd", () => {
  it("is the same offset in every turn, at the end of the first user message, and the end of a first turn", () => {
    extract(turn("What does the report cover?", ""));
    const end = ex.firstUserEnd;
    expect<i32>(end).toBe(ex.streamLen);
    const first = streamText(0, end);
    expect<bool>(first.endsWith("What does the report cover?")).toBe(true);
    extract(turn("What does the report cover?", ANSWER + SECOND));
    expect<i32>(ex.firstUserEnd).toBe(end);
    expect<bool>(ex.firstUserEnd < ex.streamLen).toBe(true);
    expect<string>(streamText(0, ex.firstUserEnd)).toBe(first);
  });

  it("counts the sections written in front of the messages (tools), and only whole user messages", () => {
    extract('{"messages":[{"content":"hello there","role":"user"}],"model":"m","tools":[{"type":"function"}]}');
    expect<bool>(ex.firstUserEnd > 0).toBe(true);
    expect<bool>(streamText(0, ex.firstUserEnd).endsWith("hello there")).toBe(true);
    expect<bool>(streamText(0, ex.firstUserEnd).includes("function")).toBe(true); // the tools come first
    extract('{"model":"m","messages":[{"role":"system","content":"only a system prompt"}]}');
    expect<i32>(ex.firstUserEnd).toBe(-1);
    extract('{"model":"m","messages":[{"role":"users","content":"not a user"},{"role":"user","content":"me"}]}');
    expect<bool>(streamText(0, ex.firstUserEnd).endsWith("me")).toBe(true);
    expect<bool>(ex.firstUserEnd == ex.streamLen).toBe(true);
  });
});

describe("conversationKey", () => {
  it("is the same for every turn of a conversation and differs between conversations", () => {
    for (let chunkChars = 16; chunkChars <= 256; chunkChars *= 4) {
      extract(turn("What does the report cover?", ""));
      const first = keyOf(chunkChars);
      expect<bool>(first != 0).toBe(true);
      extract(turn("What does the report cover?", ANSWER + SECOND));
      expect<u64>(keyOf(chunkChars)).toBe(first);
      extract(turn("What does the report say?", ANSWER + SECOND));
      expect<bool>(keyOf(chunkChars) != first).toBe(true);
      // The same first question under another system prompt is another conversation.
      extract(turn("What does the report cover?", "").replace("careful", "cheerful"));
      expect<bool>(keyOf(chunkChars) != first).toBe(true);
    }
  });

  it("is 0 without a first user message, or when it ends too far past the chunks the chain covers", () => {
    extract('{"model":"m","messages":[{"role":"system","content":"only a system prompt"}]}');
    expect<u64>(keyOf(16)).toBe(0);
    extract(turn("x".repeat(CONVERSATION_KEY_MAX_BYTES + 100), ""));
    const seed = chainSeed(ex.modelPtr, <usize>ex.modelLen, 0, 0);
    // A chain cut at 2 chunks of 16 characters leaves more than the limit unhashed.
    const short = new ChainHasher(2);
    const n = short.build(ex.streamPtr, <usize>ex.streamLen, 16, seed);
    expect<u64>(conversationKey(ex.streamPtr, ex.firstUserEnd, short.ends, short.hashes, n, seed)).toBe(0);
    expect<bool>(keyOf(256) != 0).toBe(true);
  });
});
