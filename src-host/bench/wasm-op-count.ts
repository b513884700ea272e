// Deterministic operation counts for a WebAssembly module: binaryen reads the module, and every straight-line run of
// expressions (a block's children up to and including one that may branch away, a loop's or an if arm's body) adds
// its expression count to an exported mutable i64 global, `__wasm_ops`, when it starts. A count is what the run
// would execute if it ran to its end: a call counts as one plus its operands (the callee counts its own), a nested
// block, loop or if as one (their bodies count when they run). Timings on a shared machine move by more than most
// changes; these counts do not move at all between runs, so they show what a change to the plugin's code did.
import { loadBinaryen } from "./binaryen.ts";

export const OP_COUNT_GLOBAL = "__wasm_ops";

// The fields of binaryen's expression info that hold child expressions (a Const's value is a literal).
const CHILD_FIELDS = [
  "condition", "ifTrue", "ifFalse", "body", "value", "ptr", "left", "right", "target", "vec", "shift", "a", "b", "c",
  "expected", "replacement", "delta", "size", "dest", "source",
] as const;

/** The module with every straight-line run counted into the exported i64 global OP_COUNT_GLOBAL. */
export async function instrumentOpCount(binary: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const b = await loadBinaryen();
  // The expression ids and class helpers binaryen.js has but its typings leave out.
  const api = b as unknown as Record<string, any>;
  const info = (e: number) => b.getExpressionInfo(e) as unknown as Record<string, any>;
  const id = (e: number) => b.getExpressionId(e);

  const children = (e: number): number[] => {
    if (id(e) === api.ConstId) return [];
    const x = info(e);
    const out: number[] = [];
    for (const f of CHILD_FIELDS) if (typeof x[f] === "number" && x[f] !== 0) out.push(x[f]);
    if (id(e) === api.MemoryInitId && x.offset) out.push(x.offset);
    for (const f of ["operands", "children"]) if (Array.isArray(x[f])) for (const c of x[f]) if (c) out.push(c);
    return out;
  };
  const branches = new Map<number, boolean>();
  const mayBranch = (e: number): boolean => {
    let r = branches.get(e);
    if (r !== undefined) return r;
    const k = id(e);
    r = k === api.BreakId || k === api.SwitchId || k === api.ReturnId || k === api.UnreachableId;
    if (!r) for (const c of children(e)) if (mayBranch(c)) { r = true; break; }
    branches.set(e, r);
    return r;
  };
  // Expressions of e's run: nested blocks and loops count one, an if its condition and one.
  const runLength = (e: number): number => {
    const k = id(e);
    if (k === api.BlockId || k === api.LoopId) return 1;
    if (k === api.IfId) return 1 + runLength(info(e).condition);
    let n = 1;
    for (const c of children(e)) n += runLength(c);
    return n;
  };

  const m = b.readBinary(binary);
  try {
    m.setFeatures(b.Features.All);
    m.addGlobal(OP_COUNT_GLOBAL, b.i64, true, m.i64.const(0, 0));
    m.addGlobalExport(OP_COUNT_GLOBAL, OP_COUNT_GLOBAL);
    const add = (n: number) => m.global.set(OP_COUNT_GLOBAL, m.i64.add(m.global.get(OP_COUNT_GLOBAL, b.i64), m.i64.const(n, 0)));
    const counted = (e: number) => (id(e) === api.BlockId ? e : m.block(null, [add(runLength(e)), e], b.getExpressionType(e)));
    const visit = (e: number): void => {
      const k = id(e);
      if (k === api.BlockId) {
        const kids = info(e).children as number[];
        // Runs end after a child that may branch away: what follows counts only when reached.
        const runs: Array<[at: number, length: number]> = [];
        let at = 0;
        let length = 1;
        for (let i = 0; i < kids.length; i++) {
          length += runLength(kids[i]);
          if (mayBranch(kids[i]) || i === kids.length - 1) {
            runs.push([at, length]);
            at = i + 1;
            length = 0;
          }
        }
        for (const c of kids) visit(c);
        if (kids.length === 0) api.Block.insertChildAt(e, 0, add(1));
        for (let r = runs.length - 1; r >= 0; r--) if (runs[r][1] > 0) api.Block.insertChildAt(e, runs[r][0], add(runs[r][1]));
      } else if (k === api.LoopId) {
        const body = info(e).body;
        visit(body);
        api.Loop.setBody(e, counted(body));
      } else if (k === api.IfId) {
        const x = info(e);
        visit(x.condition);
        visit(x.ifTrue);
        api.If.setIfTrue(e, counted(x.ifTrue));
        if (x.ifFalse) {
          visit(x.ifFalse);
          api.If.setIfFalse(e, counted(x.ifFalse));
        }
      } else {
        for (const c of children(e)) visit(c);
      }
    };
    for (let i = 0; i < m.getNumFunctions(); i++) {
      const f = m.getFunctionByIndex(i);
      const fn = b.getFunctionInfo(f);
      if (fn.module || !fn.body) continue; // an import
      visit(fn.body);
      api.Function.setBody(f, counted(fn.body));
    }
    if (!m.validate()) throw new Error("instrumentOpCount: the counted module does not validate");
    return new Uint8Array(m.emitBinary());
  } finally {
    m.dispose();
  }
}

/** The operations an instance of an instrumented module has counted so far. */
export function opsCounted(instance: WebAssembly.Instance): bigint {
  return (instance.exports[OP_COUNT_GLOBAL] as WebAssembly.Global).value as bigint;
}
