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

/** API shape of the request body. */
export enum RequestKind {
  Unknown = 0,
  Chat = 1,
  Completions = 2,
  Responses = 3,
  Anthropic = 4,
}
