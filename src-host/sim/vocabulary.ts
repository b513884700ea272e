// Words that are each exactly one o200k token when preceded by a space, read from the tokenizer's own
// vocabulary. Text made of " word" pieces tokenizes to one id per piece (the pre-tokenizer splits at each
// space), so a token budget maps to text exactly, and the ids are known without running BPE.
import { decode, encode } from "gpt-tokenizer/encoding/o200k_base";

const FIRST_ID = 1000;
const LAST_ID = 60_000;
const MAX_WORDS = 4096;
const WORD = /^ [a-z]{3,12}$/;

export interface Vocabulary {
  /** Pieces, each " word". */
  readonly pieces: readonly string[];
  readonly ids: readonly number[];
  /** Word (without the space) to token id. */
  readonly idOf: ReadonlyMap<string, number>;
}

let cached: Vocabulary | null = null;

export function vocabulary(): Vocabulary {
  if (cached !== null) return cached;
  const pieces: string[] = [];
  const ids: number[] = [];
  const idOf = new Map<string, number>();
  for (let id = FIRST_ID; id < LAST_ID && pieces.length < MAX_WORDS; id++) {
    const piece = decode([id]);
    if (!WORD.test(piece) || idOf.has(piece.slice(1))) continue;
    const again = encode(piece);
    if (again.length !== 1 || again[0] !== id) continue;
    pieces.push(piece);
    ids.push(id);
    idOf.set(piece.slice(1), id);
  }
  cached = { pieces, ids, idOf };
  return cached;
}
