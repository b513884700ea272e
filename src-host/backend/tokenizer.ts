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
    const ids = bpeEncode(text, PLAIN_TEXT);
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

/** Process-wide tokenizer for callers that do not need their own memo. */
export const sharedTokenizer = new Tokenizer();

export function encode(text: string): readonly number[] {
  return sharedTokenizer.encode(text);
}

export function countTokens(text: string): number {
  return sharedTokenizer.countTokens(text);
}
