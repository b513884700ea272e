// SGLang's generated-shared-prefix shape (and the inference extension's prefix benchmark): `groups`
// system prompts, each followed by one of `promptsPerGroup` fixed questions. Each arrival picks a group
// (uniformly, or Zipf-skewed for hot spots) and a question uniformly.
import { pseudoText, type PseudoText } from "../pseudo-text.ts";
import type { SeededRandom } from "../../util/seeded-random.ts";
import type { SharedPrefixSpec } from "../workload.ts";
import { ZipfPick } from "./zipf-pick.ts";
import { Memo, type ChatMessage, type RequestSpec, type TrafficGenerator } from "./traffic-generator.ts";

export class SharedPrefixGenerator implements TrafficGenerator {
  readonly type = "shared-prefix";
  private readonly systems = new Memo<PseudoText>(4096);
  private readonly questions = new Memo<PseudoText>(16_384);
  private readonly groups: ZipfPick;

  constructor(
    private readonly spec: SharedPrefixSpec,
    private readonly index: number,
    private readonly seed: number,
    private readonly rng: SeededRandom,
  ) {
    this.groups = new ZipfPick(spec.groups, spec.groupSkew);
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
    const group = this.groups.next(this.rng);
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
}
