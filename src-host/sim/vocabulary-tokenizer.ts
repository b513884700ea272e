// The backend's Tokenizer with a fast path for pseudo-text: a string made only of " word" vocabulary
// pieces maps to their ids directly (the same ids BPE gives, see vocabulary.ts); anything else goes to BPE.
import { Tokenizer } from "../backend/tokenizer.ts";
import { vocabulary } from "./vocabulary.ts";

export class VocabularyTokenizer extends Tokenizer {
  fastPathHits = 0;
  private readonly idOf = vocabulary().idOf;

  override encode(text: string): readonly number[] {
    if (text.length > 1 && text.charCodeAt(0) === 32) {
      const ids = this.wordIds(text);
      if (ids !== null) {
        this.fastPathHits++;
        return ids;
      }
    }
    return super.encode(text);
  }

  private wordIds(text: string): number[] | null {
    const words = text.split(" ");
    const ids: number[] = new Array(words.length - 1);
    for (let i = 1; i < words.length; i++) {
      const id = this.idOf.get(words[i]);
      if (id === undefined) return null;
      ids[i - 1] = id;
    }
    return ids;
  }
}
