// SGLang's generated-shared-prefix shape (and the inference extension's prefix benchmark): `groups`
// system prompts, each followed by one of `promptsPerGroup` fixed questions. Each arrival picks a group
// (uniformly, or Zipf-skewed for hot spots) and a question uniformly.
import { pseudoText, type PseudoText } from "../pseudo-text.ts";
import { Rng } from "../rng.ts";
import type { SharedPrefixSpec } from "../workload.ts";
import { Memo, type ChatMessage, type RequestSpec, type TrafficGenerator } from "./traffic-generator.ts";

export class SharedPrefixGenerator implements TrafficGenerator {
  readonly type = "shared-prefix";
  private readonly systems = new Memo<PseudoText>(4096);
  private readonly questions = new Memo<PseudoText>(16_384);
  private readonly cumulative: Float64Array | null;

  constructor(
    private readonly spec: SharedPrefixSpec,
    private readonly index: number,
    private readonly seed: number,
    private readonly rng: Rng,
  ) {
    if (spec.groupSkew > 0) {
      this.cumulative = new Float64Array(spec.groups);
      let sum = 0;
      for (let g = 0; g < spec.groups; g++) this.cumulative[g] = sum += 1 / Math.pow(g + 1, spec.groupSkew);
    } else {
      this.cumulative = null;
    }
  }

  systemText(group: number): PseudoText {
    return this.systems.get(String(group), () => pseudoText(this.seed, `t${this.index}/system/${group}`, this.spec.systemTokens));
  }

  questionText(group: number, prompt: number): PseudoText {
    return this.questions.get(`${group}/${prompt}`, () =>
      pseudoText(this.seed, `t${this.index}/question/${group}/${prompt}`, this.spec.questionTokens),
    );
  }

  next(): RequestSpec {
    const group = this.pickGroup();
    const prompt = this.rng.int(this.spec.promptsPerGroup);
    const messages: ChatMessage[] = [];
    if (this.spec.systemTokens > 0) messages.push({ role: "system", content: this.systemText(group).text });
    messages.push({ role: "user", content: this.questionText(group, prompt).text });
    return { generator: this.index, sessionKey: `t${this.index}/group/${group}`, messages, maxTokens: this.spec.outputTokens, slot: group };
  }

  complete(): null {
    return null;
  }

  release(): void {}

  private pickGroup(): number {
    const c = this.cumulative;
    if (c === null) return this.rng.int(this.spec.groups);
    const x = this.rng.next() * c[c.length - 1];
    let lo = 0;
    let hi = c.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (c[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
