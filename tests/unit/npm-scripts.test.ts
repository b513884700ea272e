// `npm run -s <tool> -- --json > file` leaves only the tool's JSON in the file: every script that rebuilds the
// modules before a CLI sends the build's output to stderr. (`npm start` once printed the build log on stdout.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const scripts: Record<string, string> = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")).scripts;

test("scripts that build before a CLI send the build's output to stderr", () => {
  const runsCli = Object.entries(scripts).filter(([, cmd]) => /tsx src-host\/cli\//.test(cmd));
  assert.ok(runsCli.length >= 7, "found the CLI scripts");
  for (const [name, cmd] of runsCli) {
    if (!/npm run (-s )?build/.test(cmd)) continue;
    assert.match(cmd, /^npm run -s build 1>&2 && /, `${name}: ${cmd}`);
  }
});
