// Outcome codes of RequestExtractor.extract().

export enum ExtractStatus {
  /** Model found; see prefixUsable for whether the stream can be used. */
  Ok = 0,
  /** The scanned part of the body is not valid JSON. */
  InvalidJson = 1,
  /** A complete, valid body without a string "model". */
  MissingModel = 2,
  /** Valid JSON whose top-level value is not an object. */
  NotObject = 3,
  /** The step budget ran out before a "model" was seen. */
  BudgetNoModel = 4,
}

/** Why prefixUsable is false. */
export enum PrefixSkipReason {
  None = 0,
  /** The step budget ran out before the stream was complete. */
  Budget = 1,
  /**
   * Reserved: a full stream buffer does not make the prefix unusable (the chain covers the first
   * streamCapBytes); it sets RequestExtractor.streamTruncated instead.
   */
  StreamFull = 2,
  /** A completions prompt given as token ids. */
  TokenArray = 3,
  /** No prompt-bearing field (messages, input, prompt, system, instructions). */
  NoPrompt = 4,
}

/** API shape of the request body. */
export enum RequestKind {
  Unknown = 0,
  Chat = 1,
  Completions = 2,
  Responses = 3,
  Anthropic = 4,
}
