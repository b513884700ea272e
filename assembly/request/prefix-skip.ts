// Why a request got no prefix signal (it is still scheduled on the load signals). The extractor says why its
// stream is unusable (RequestExtractor.prefixSkip); the decision adds ShortPrompt.
export enum PrefixSkip {
  None = 0,
  /** The step budget ran out before the stream was complete. */
  Budget = 1,
  /** A completions prompt given as token ids. */
  TokenArray = 2,
  /** No prompt-bearing field (messages, input, prompt, system, instructions). */
  NoPrompt = 3,
  /** The stream is shorter than one chunk. */
  ShortPrompt = 4,
  Count = 5,
}

export const PREFIX_SKIP_NAMES: StaticArray<string> = ["none", "budget", "token_array", "no_prompt", "short_prompt"];
