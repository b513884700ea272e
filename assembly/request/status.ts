// Outcome codes of RequestExtractor.extract().

export namespace ExtractStatus {
  /** Model found; see prefixUsable for whether the stream can be used. */
  export const Ok: i32 = 0;
  /** The scanned part of the body is not valid JSON. */
  export const InvalidJson: i32 = 1;
  /** A complete, valid body without a string "model". */
  export const MissingModel: i32 = 2;
  /** Valid JSON whose top-level value is not an object. */
  export const NotObject: i32 = 3;
  /** The step budget ran out before a "model" was seen. */
  export const BudgetNoModel: i32 = 4;
}

/** Why prefixUsable is false. */
export namespace PrefixSkipReason {
  export const None: i32 = 0;
  /** The step budget ran out before the stream was complete. */
  export const Budget: i32 = 1;
  /**
   * Reserved: a full stream buffer does not make the prefix unusable (the chain covers the first
   * streamCapBytes); it sets RequestExtractor.streamTruncated instead.
   */
  export const StreamFull: i32 = 2;
  /** A completions prompt given as token ids. */
  export const TokenArray: i32 = 3;
  /** No prompt-bearing field (messages, input, prompt, system, instructions). */
  export const NoPrompt: i32 = 4;
}

/** API shape of the request body. */
export namespace RequestKind {
  export const Unknown: i32 = 0;
  export const Chat: i32 = 1;
  export const Completions: i32 = 2;
  export const Responses: i32 = 3;
  export const Anthropic: i32 = 4;
}
