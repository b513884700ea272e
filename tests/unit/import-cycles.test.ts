// No module imports itself back, directly or through others, in either tree: data flows one way. The graph
// is read from the relative imports of each file (AssemblyScript and TypeScript alike), without compiling.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^;]*?from\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** The file a relative specifier names (AssemblyScript omits the extension; TypeScript here writes `.ts`). */
function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** The import graph of the files under `dir`, restricted to edges that stay inside `dir`. */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = sourceFiles(dir);
  for (const file of files) {
    // Type-only imports still tie the modules together for a reader; comments are dropped first.
    const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    const targets: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveImport(file, m[1] ?? m[2]);
      if (target !== null && target.startsWith(dir + "/")) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle's member list (one per strongly connected component with more than one file, or a self-import). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

for (const tree of ["assembly", "src-host"]) {
  test(`${tree}/ has no import cycle`, () => {
    const dir = join(ROOT, tree);
    const found = cycles(importGraph(dir)).map((c) => c.map((f) => relative(ROOT, f)));
    assert.deepEqual(found, [], `import cycles:\n${found.map((c) => "  " + c.join(" <-> ")).join("\n")}`);
  });
}

/** The same graph between the tree's top-level folders (files at the top count as their own node). */
function folderGraph(dir: string, graph: Map<string, string[]>): Map<string, string[]> {
  const folder = (file: string) => relative(dir, file).split("/")[0];
  const folders = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    const from = folder(file);
    const edges = folders.get(from) ?? [];
    for (const t of targets) if (folder(t) !== from && !edges.includes(folder(t))) edges.push(folder(t));
    folders.set(from, edges);
  }
  return folders;
}

for (const tree of ["assembly", "src-host"]) {
  test(`${tree}/'s folders form layers (no folder imports one that imports it back)`, () => {
    const dir = join(ROOT, tree);
    const found = cycles(folderGraph(dir, importGraph(dir)));
    assert.deepEqual(found, [], `folder cycles:\n${found.map((c) => "  " + c.join(" <-> ")).join("\n")}`);
  });
}

test("the cycle check sees a cycle when there is one", () => {
  const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
  assert.deepEqual(cycles(graph), [["a", "b", "c"]]);
  assert.deepEqual(cycles(new Map([["a", ["a"]]])), [["a"]]);
  assert.deepEqual(cycles(new Map([["a", ["b"]], ["b", []]])), []);
});
