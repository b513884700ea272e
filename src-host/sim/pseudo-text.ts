// Deterministic pseudo-text with a known token count: `tokens` vocabulary words drawn from a stream
// seeded by a key, so the same key always gives the same text (in every policy run and every process).
import { SeededRandom, hashString } from "../util/seeded-random.ts";
import { vocabulary } from "./vocabulary.ts";

export interface PseudoText {
  text: string;
  ids: number[];
}

export function pseudoText(seed: number, key: string, tokens: number): PseudoText {
  const vocab = vocabulary();
  const rng = new SeededRandom(hashString(key, seed));
  const n = vocab.pieces.length;
  const parts: string[] = new Array(tokens);
  const ids: number[] = new Array(tokens);
  for (let i = 0; i < tokens; i++) {
    const w = rng.int(n);
    parts[i] = vocab.pieces[w];
    ids[i] = vocab.ids[w];
  }
  return { text: parts.join(""), ids };
}
