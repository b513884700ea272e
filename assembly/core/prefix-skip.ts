// Why a request got no prefix signal (it is still scheduled on the load signals).
export namespace PrefixSkip {
  export const None: i32 = 0;
  export const Budget: i32 = 1;
  export const TokenArray: i32 = 2;
  export const NoPrompt: i32 = 3;
  export const ShortPrompt: i32 = 4;
}

export const PREFIX_SKIP_NAMES: StaticArray<string> = ["none", "budget", "token_array", "no_prompt", "short_prompt"];
