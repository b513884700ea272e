// docs/config.md's scoring rows come from the scorer list: each scorer's weights.<name> row (in list order, the
// table's first rows) and a row per config key of its own, with the defaults, ranges and meanings the scorer
// files declare (assembly/scheduling/scorers/).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const LIST = "assembly/scheduling/scorer-list.ts";
const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const NUMBER = String.raw`[\d.e]+`;

// 1e6 and up print as a power of ten, as the table writes them.
function shown(x: number): string {
  const exponent = Math.log10(x);
  return x >= 1e6 && Number.isInteger(exponent) ? `1e${exponent}` : String(x);
}

function scorerRows(): { weights: string[]; keys: string[] } {
  const list = readFileSync(LIST, "utf8");
  const factories = [...list.matchAll(/^  (new\w+Scorer),$/gm)].map((m) => m[1]);
  const weights: string[] = [];
  const keys: string[] = [];
  for (const factory of factories) {
    const from = new RegExp(String.raw`import \{ ${factory} \} from "\./([^"]+)";`).exec(list);
    assert.ok(from, `${factory} is imported in ${LIST}`);
    const source = readFileSync(`assembly/scheduling/${from[1]}.ts`, "utf8");
    const ctor = new RegExp(
      String.raw`super\(capacity, "(\w+)", "(\w+)", (${NUMBER}), (?:true|false), (?:true|false),\s*\[([\s\S]*?)\],\s*(${STRING})\s*\)`,
    ).exec(source);
    assert.ok(ctor, `${from[1]}.ts declares its scorer in the shape this test reads`);
    const [, name, , weight, params, description] = ctor;
    weights.push(`| \`weights.${name}\` | number | ${weight} | 0..1000 | ${JSON.parse(description)} |`);
    const param = new RegExp(String.raw`new ScorerParam\("([\w.]+)", (${NUMBER}), (${NUMBER}), (${NUMBER}),\s*(${STRING})\)`, "g");
    for (const p of params.matchAll(param)) {
      keys.push(`| \`${p[1]}\` | number | ${shown(Number(p[2]))} | ${shown(Number(p[3]))}..${shown(Number(p[4]))} | ${JSON.parse(p[5])} |`);
    }
  }
  return { weights, keys };
}

test("docs/config.md's weights and scorer keys match the scorer list", () => {
  const rows = readFileSync("docs/config.md", "utf8").split("\n").filter((l) => /^\| `[^`]+` \|/.test(l));
  const { weights, keys } = scorerRows();
  assert.ok(weights.length >= 7, "every shipped scorer is read");
  assert.ok(keys.length >= 4, "the scorers' own keys are read");
  assert.deepEqual(rows.slice(0, weights.length), weights, "the table starts with one weights row per scorer, in list order");
  assert.equal(rows.filter((l) => l.startsWith("| `weights.")).length, weights.length, "no weights row without a scorer");
  for (const row of keys) assert.ok(rows.includes(row), `docs/config.md has the row ${row}`);
});
