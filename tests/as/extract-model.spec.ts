// The model name is decoded as the scan reads it (RequestExtractor.scanMembers): compared with decoding the span of the
// last "model" member read (FieldSpans.collect, decodeJsonString), at every step budget.
import { ExtractStatus, MODEL_CAP_BYTES, RequestExtractor } from "../../assembly/request/extract";
import { FieldSpans } from "../../assembly/request/field-spans";
import { JsonScanner, JsonToken } from "../../assembly/json/scanner";
import { decodeJsonString, decodedBytes, stoppedAtCap } from "../../assembly/json/string-decoder";

const ex = new RequestExtractor(1 << 12, 32);
const refScanner = new JsonScanner(32);
const MODEL_KEY: StaticArray<string> = ["model"];
const refSpans = new FieldSpans(MODEL_KEY);
const refBuffer = new ArrayBuffer(MODEL_CAP_BYTES);

function repeat(s: string, n: i32): string {
  let r = "";
  for (let i = 0; i < n; i++) r += s;
  return r;
}

// Model values: short, escaped, long enough to be cut (on a character boundary, after an escape), exactly the cap.
const MODELS: string[] = [
  '"m"',
  '"meta-llama/Llama-3.1-8B-Instruct"',
  '"caf\\u00e9\\n\\"x\\" \\ud83d\\ude00 naïve"',
  '"' + repeat("a", MODEL_CAP_BYTES) + '"',
  '"' + repeat("a", MODEL_CAP_BYTES + 1) + '"',
  '"' + repeat("b", MODEL_CAP_BYTES - 1) + 'é"',
  '"' + repeat("c", MODEL_CAP_BYTES - 1) + '\\u00e9"',
  '"' + repeat("d", MODEL_CAP_BYTES - 2) + '😀tail"',
  '"' + repeat("e", 300) + '\\n"',
  '""',
];

// Bodies whose "model" members come before any section (so that both reads draw one step per token up to them).
function bodies(): string[] {
  const out: string[] = [];
  const messages = '"messages":[{"role":"user","content":"hi"}]';
  for (let i = 0; i < MODELS.length; i++) {
    const m = MODELS[i];
    out.push('{"model":' + m + "," + messages + "}");
    out.push('{ "stream" : true , "model" : ' + m + " , " + messages + "}");
    // A repeated key keeps its last value; a later non-string model is none.
    out.push('{"model":' + MODELS[(i + 1) % MODELS.length] + ',"model":' + m + "," + messages + "}");
    out.push('{"model":' + m + ',"model":7,' + messages + "}");
    out.push('{"model":' + m + ',"model":["x"],"model":' + MODELS[(i + 3) % MODELS.length] + "," + messages + "}");
  }
  return out;
}

let held: ArrayBuffer = new ArrayBuffer(0);

describe("model decoded during the scan", () => {
  it("matches decoding the last model member's span, at every budget", () => {
    const all = bodies();
    let compared = 0;
    for (let b = 0; b < all.length; b++) {
      held = String.UTF8.encode(all[b]);
      const ptr = changetype<usize>(held);
      const len = <usize>held.byteLength;
      for (let steps = 0; steps <= 12; steps++) {
        const status = ex.extract(ptr, len, steps);
        refScanner.reset(ptr, len, steps);
        refSpans.clear();
        if (refScanner.next() == JsonToken.ObjStart) refSpans.collect(refScanner);
        const hasModel = refSpans.token(0) == JsonToken.String;
        if (!hasModel) {
          expect(status == ExtractStatus.BudgetNoModel || status == ExtractStatus.MissingModel).toBe(true, all[b] + " @" + steps.toString());
          continue;
        }
        expect(status).toBe(ExtractStatus.Ok, all[b] + " @" + steps.toString());
        const r = decodeJsonString(refSpans.start(0) + 1, refSpans.end(0) - 1, changetype<usize>(refBuffer), MODEL_CAP_BYTES, 0);
        expect(ex.modelLen).toBe(decodedBytes(r), all[b] + " @" + steps.toString());
        expect(ex.modelTruncated).toBe(stoppedAtCap(r), all[b] + " @" + steps.toString());
        expect(memory.compare(ex.modelPtr, changetype<usize>(refBuffer), <usize>ex.modelLen)).toBe(0, all[b] + " @" + steps.toString());
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(all.length * 4);
  });
});
