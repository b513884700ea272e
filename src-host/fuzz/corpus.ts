// Fuzz inputs on disk: each failing input as <dir>/<target>/<hash>.json (binary fields base64), named by a
// hash of its content so the same failure is saved once. A fuzz run saves into FINDINGS_DIR (under build/, not
// versioned); the tests replay every file of CORPUS_DIR (tests/corpus/), where a finding is copied once fixed.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The corpus the tests replay. */
export const CORPUS_DIR = path.join(REPO_ROOT, "tests/corpus");
/** Where a fuzz run saves its failing inputs by default. */
export const FINDINGS_DIR = path.join(REPO_ROOT, "build/fuzz-findings");

export interface CorpusEntry {
  target: string;
  /** What went wrong when it was saved (informational). */
  violations: string[];
  seed: number;
  iteration: number;
  input: unknown;
}

/** Saves a failing input; returns its path. */
export function saveCorpusEntry(entry: CorpusEntry, dir = FINDINGS_DIR): string {
  const text = JSON.stringify(entry.input);
  const hash = createHash("sha256").update(entry.target + "\0" + text).digest("hex").slice(0, 16);
  const folder = path.join(dir, entry.target);
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${hash}.json`);
  writeFileSync(file, JSON.stringify(entry, null, 1) + "\n");
  return file;
}

export function loadCorpus(target: string, dir = CORPUS_DIR): Array<{ file: string; entry: CorpusEntry }> {
  const folder = path.join(dir, target);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ file: path.join(folder, f), entry: JSON.parse(readFileSync(path.join(folder, f), "utf8")) as CorpusEntry }));
}
