// The backend's Tokenizer with a fast path for pseudo-text: a string made only of " word" vocabulary
// pieces maps to their ids directly (the same ids BPE gives, see vocabulary.ts); anything else goes to BPE.
import { Tokenizer, type TokenizerOptions } from "../backend/tokenizer.ts";
import { vocabulary } from "./vocabulary.ts";

export class VocabularyTokenizer extends Tokenizer {
  fastPathHits = 0;
  private readonly idOf = vocabulary().idOf;
  // Shared system prompts and resent chat history come back many times: remember their ids.
  private readonly known = new Map<string, number[]>();
  private readonly knownEntries: number;

  constructor(options: TokenizerOptions = {}) {
    super(options);
    this.knownEntries = options.memoEntries ?? 4096;
  }

  override encode(text: string): readonly number[] {
    if (text.length > 1 && text.charCodeAt(0) === 32) {
      let ids = this.known.get(text);
      if (ids === undefined) {
        const fresh = this.wordIds(text);
        if (fresh !== null) {
          if (this.known.size >= this.knownEntries) this.known.delete(this.known.keys().next().value as string);
          this.known.set(text, (ids = fresh));
        }
      }
      if (ids !== undefined) {
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
