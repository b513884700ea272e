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

// The Node.js a fresh machine needs is stated once per place a user reads it: README's quick start, package.json's
// engines (npm ci warns below it) and the backend image's base (examples/backend/Dockerfile) all agree.
test("README's Node.js requirement is package.json's engines.node, and the backend image meets it", () => {
  const engines: string = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")).engines.node;
  const minimum = /^>=(\d+)\.(\d+)$/.exec(engines);
  assert.ok(minimum, `engines.node ${engines} is ">=MAJOR.MINOR"`);
  const readme = /On a fresh machine \(Node\.js (\d+)\.(\d+) or later/.exec(readFileSync(resolve(ROOT, "README.md"), "utf8"));
  assert.ok(readme, "README's quick start names the Node.js version");
  assert.deepEqual(readme.slice(1), minimum.slice(1), `README says ${readme[1]}.${readme[2]}, engines.node ${engines}`);
  const image = /^FROM node:(\d+)\.(\d+)/m.exec(readFileSync(resolve(ROOT, "examples/backend/Dockerfile"), "utf8"));
  assert.ok(image, "the backend image names a node:MAJOR.MINOR base");
  const [major, minor] = [Number(image[1]), Number(image[2])];
  assert.ok(major > Number(minimum[1]) || (major === Number(minimum[1]) && minor >= Number(minimum[2])), `node:${image[1]}.${image[2]} is below ${engines}`);
});
