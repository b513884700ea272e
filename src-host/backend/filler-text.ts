// Deterministic generated text. Every piece is " word" and encodes to exactly one token, so the text of
// N tokens re-tokenizes to the same N ids: when the client sends the answer back in the next turn, the
// blocks the answer filled during decoding can be hit, as with a real model.
import { encode } from "./tokenizer.ts";

const CANDIDATES = (
  "the of and to in is that for it as was with be by on not he this are or his from at which but have an " +
  "they you were her she there one all we their been has when who will more no if out so said what up its " +
  "about into than them can only other new some could time these two may then do first any my now such " +
  "like our over man me even most made after also did many before must through back years where much your " +
  "way well down should because each just those people how too little state good very make world still own " +
  "see men work long get here between both life being under never day same another know while last might " +
  "great old year off come since against go came right used take three cache model token river garden"
).split(" ");

const WORDS: { piece: string; id: number }[] = [];
for (const word of CANDIDATES) {
  const piece = ` ${word}`;
  const ids = encode(piece);
  if (ids.length === 1 && !WORDS.some((w) => w.id === ids[0])) WORDS.push({ piece, id: ids[0] });
}

export interface FillerOutput {
  tokenIds: number[];
  /** Text of each token, in order; their concatenation is the answer. */
  pieces: string[];
}

/** `count` filler tokens starting at word `offset` (any integer; used to vary answers between prompts). */
export function fillerOutput(count: number, offset: number): FillerOutput {
  const tokenIds: number[] = new Array(count);
  const pieces: string[] = new Array(count);
  const start = ((offset % WORDS.length) + WORDS.length) % WORDS.length;
  for (let i = 0; i < count; i++) {
    const w = WORDS[(start + i) % WORDS.length];
    tokenIds[i] = w.id;
    pieces[i] = w.piece;
  }
  return { tokenIds, pieces };
}

export const FILLER_VOCABULARY_SIZE = WORDS.length;
