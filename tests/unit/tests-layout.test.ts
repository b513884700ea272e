// Tests are laid out like what they exercise, and the product's tooling does not reach into tests/: every
// node test sits in unit/ (no plugin, no socket), integration/ (the plugin in the in-process host) or e2e/
// (sockets and child processes), and `npm run test:host` runs all three folders.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const TEST_FOLDERS = ["tests/unit", "tests/integration", "tests/e2e"];

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else out.push(relative(ROOT, path));
  }
  return out;
}

test("every node test is in tests/unit, tests/integration or tests/e2e, and npm run test:host runs them", () => {
  const misplaced = files(join(ROOT, "tests")).filter((f) => f.endsWith(".test.ts") && !TEST_FOLDERS.some((d) => f.startsWith(d + "/")));
  assert.deepEqual(misplaced, []);
  const script: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts["test:host"];
  for (const dir of TEST_FOLDERS) assert.ok(script.includes(`${dir}/*.test.ts`), `test:host runs ${dir}`);
  // Subfolders too: each test file must match one of the script's folder globs.
  const globs = script.split(/\s+/).filter((w) => w.endsWith("/*.test.ts")).map((g) => g.slice(0, -"*.test.ts".length));
  const unrun = files(join(ROOT, "tests")).filter((f) => f.endsWith(".test.ts") && !globs.some((g) => f.startsWith(g) && !f.slice(g.length).includes("/")));
  assert.deepEqual(unrun, [], "test files npm run test:host does not run");
});

test("the tooling in src-host/ names no file under tests/ except the fuzz corpus the tests replay", () => {
  const offenders: string[] = [];
  for (const f of files(join(ROOT, "src-host"))) {
    const text = readFileSync(join(ROOT, f), "utf8");
    for (const m of text.matchAll(/["'`](?:\.\.\/)*tests\/([\w./-]*)/g)) if (!m[1].startsWith("corpus")) offenders.push(`${f}: ${m[0]}`);
  }
  assert.deepEqual(offenders, []);
});
