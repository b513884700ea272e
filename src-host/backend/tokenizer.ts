// Real BPE token ids (o200k_base via gpt-tokenizer), so that characters and tokens differ the way they do
// for a real model. Special markers such as <|im_start|> are only produced by the template, never by user text.
import { decode as bpeDecode, encode as bpeEncode } from "gpt-tokenizer/encoding/o200k_base";

export type SpecialToken = "<|im_start|>" | "<|im_end|>" | "<|endoftext|>";

const SPECIAL_IDS: Record<SpecialToken, number> = {
  "<|endoftext|>": 199_999,
  "<|im_start|>": 200_003,
  "<|im_end|>": 200_004,
};

// User text that spells a special marker is tokenized as ordinary text.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export function specialTokenId(token: SpecialToken): number {
  return SPECIAL_IDS[token];
}

export function decodeTokens(ids: readonly number[]): string {
  return bpeDecode(ids);
}

export interface TokenizerOptions {
  /** Entries kept in the memo of encoded strings (multi-turn chats resend the same messages). */
  memoEntries?: number;
  /** Strings longer than this are encoded without being memoized. */
  memoMaxChars?: number;
}

/** Encodes text to token ids with a bounded LRU memo keyed by the exact string. */
export class Tokenizer {
  private readonly memo = new Map<string, readonly number[]>();
  private readonly memoEntries: number;
  private readonly memoMaxChars: number;

  constructor(options: TokenizerOptions = {}) {
    this.memoEntries = options.memoEntries ?? 4096;
    this.memoMaxChars = options.memoMaxChars ?? 1 << 20;
  }

  /** Token ids of plain text. The returned array is shared: do not mutate it. */
  encode(text: string): readonly number[] {
    if (text.length === 0) return EMPTY;
    const hit = this.memo.get(text);
    if (hit !== undefined) {
      this.memo.delete(text);
      this.memo.set(text, hit);
      return hit;
    }
    const ids = encodeBounded(text);
    if (text.length <= this.memoMaxChars && this.memoEntries > 0) {
      if (this.memo.size >= this.memoEntries) {
        const oldest = this.memo.keys().next().value as string;
        this.memo.delete(oldest);
      }
      this.memo.set(text, ids);
    }
    return ids;
  }

  countTokens(text: string): number {
    return this.encode(text).length;
  }

  get memoSize(): number {
    return this.memo.size;
  }
}

const EMPTY: readonly number[] = Object.freeze([]);

/** Longest run of whitespace or of non-whitespace characters handed to the BPE in one piece. */
export const MAX_RUN_CHARS = 1024;
const LONG_RUN = new RegExp(`\\s{${MAX_RUN_CHARS + 1},}|\\S{${MAX_RUN_CHARS + 1},}`, "g");

/**
 * BPE merging is quadratic in the length of one pre-token: a prompt of a million identical letters (one
 * "word") would hold the server's only thread for hours. Runs longer than MAX_RUN_CHARS are cut into pieces
 * of that length counted from the run's start (so a longer text with the same beginning is cut at the same
 * places); any other text is encoded exactly as the plain BPE does.
 */
function encodeBounded(text: string): number[] {
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return bpeEncode(text, PLAIN_TEXT);
  const out: number[] = [];
  const push = (piece: string) => {
    if (piece.length > 0) for (const id of bpeEncode(piece, PLAIN_TEXT)) out.push(id);
  };
  let at = 0;
  LONG_RUN.lastIndex = 0;
  for (let m = LONG_RUN.exec(text); m !== null; m = LONG_RUN.exec(text)) {
    push(text.slice(at, m.index));
    const end = m.index + m[0].length;
    for (let i = m.index; i < end; ) {
      let cut = Math.min(end, i + MAX_RUN_CHARS);
      const before = text.charCodeAt(cut - 1);
      if (cut < end && before >= 0xd800 && before <= 0xdbff) cut++; // never split a surrogate pair
      push(text.slice(i, cut));
      i = cut;
    }
    at = end;
  }
  push(text.slice(at));
  return out;
}

/** Process-wide tokenizer for callers that do not need their own memo. */
export const sharedTokenizer = new Tokenizer();

export function encode(text: string): readonly number[] {
  return sharedTokenizer.encode(text);
}

export function countTokens(text: string): number {
  return sharedTokenizer.countTokens(text);
}
