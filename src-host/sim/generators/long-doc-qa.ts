// Long-document QA: `documents` long texts, each asked `questionsPerDoc` fixed questions. The user message
// is the document followed by the question, so requests on one document share a long prefix.
import { pseudoText, type PseudoText } from "../pseudo-text.ts";
import type { SeededRandom } from "../../util/seeded-random.ts";
import type { LongDocQaSpec } from "../workload.ts";
import { Memo, type RequestSpec, type TrafficGenerator } from "./traffic-generator.ts";

export class LongDocQaGenerator implements TrafficGenerator {
  readonly type = "long-doc-qa";
  private readonly docs = new Memo<PseudoText>(1024);
  private readonly questions = new Memo<PseudoText>(16_384);

  constructor(
    private readonly spec: LongDocQaSpec,
    private readonly index: number,
    private readonly seed: number,
    private readonly rng: SeededRandom,
  ) {}

  docText(doc: number): PseudoText {
    return this.docs.get(String(doc), () => pseudoText(this.seed, `t${this.index}/doc/${doc}`, this.spec.docTokens));
  }

  questionText(doc: number, q: number): PseudoText {
    return this.questions.get(`${doc}/${q}`, () => pseudoText(this.seed, `t${this.index}/docq/${doc}/${q}`, this.spec.questionTokens));
  }

  next(): RequestSpec {
    const doc = this.rng.int(this.spec.documents);
    const q = this.rng.int(this.spec.questionsPerDoc);
    // Both texts are " word" sequences, so their concatenation tokenizes to the concatenated ids.
    const content = this.docText(doc).text + this.questionText(doc, q).text;
    return {
      generator: this.index, sessionKey: `t${this.index}/doc/${doc}`,
      messages: [{ role: "user", content }], maxTokens: this.spec.outputTokens, slot: doc,
    };
  }

  complete(): null {
    return null;
  }

  release(): void {}
}
