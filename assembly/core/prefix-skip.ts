// Why a request got no prefix signal (it is still scheduled on the load signals).
export enum PrefixSkip {
  None = 0,
  Budget = 1,
  TokenArray = 2,
  NoPrompt = 3,
  ShortPrompt = 4,
  Count = 5,
}

export const PREFIX_SKIP_NAMES: StaticArray<string> = ["none", "budget", "token_array", "no_prompt", "short_prompt"];
