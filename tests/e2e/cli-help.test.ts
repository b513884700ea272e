// Every CLI in src-host/cli/ answers --help (and -h) with a usage text naming each flag it parses, exit 0 and no
// work done; an unknown flag or a bad value is one line on stderr and exit code 2, never a stack trace. The flags
// are read from the options object each CLI hands to parseCliArgs, so a new flag without a usage line fails here.
// Needs no build: every case ends before a plugin is loaded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI_DIR = join(ROOT, "src-host/cli");
const CLIS = readdirSync(CLI_DIR).filter((f) => f.endsWith(".ts") && f !== "cli-args.ts").sort();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, ["--import", "tsx", join("src-host/cli", file), ...args], { cwd: ROOT, timeout: 20_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/** The flag names in the options object a CLI passes to parseCliArgs. */
function parsedFlags(file: string): string[] {
  const source = readFileSync(join(CLI_DIR, file), "utf8");
  const start = source.indexOf("parseCliArgs(");
  assert.ok(start >= 0, `${file} parses its arguments with parseCliArgs`);
  const block = source.slice(start, source.indexOf("});", start));
  const flags = [...block.matchAll(/^\s*"?([a-z][a-z-]*)"?: \{ type: "(?:string|boolean)"/gm)].map((m) => m[1]);
  assert.ok(flags.length > 0, `${file}: found its flags`);
  return flags;
}

function assertOneLineError(file: string, r: Run, pattern: RegExp): void {
  const tool = file.replace(/\.ts$/, "");
  assert.equal(r.code, 2, `${file}: exit code 2; stderr: ${r.stderr}`);
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `${file}: a one-line error, got:\n${r.stderr}`);
  assert.match(lines[0], new RegExp(`^${tool}: `), `${file}: the error names the tool`);
  assert.match(lines[0], pattern);
  assert.equal(r.stdout, "", `${file}: nothing on stdout`);
}

test("the CLI list is the one the docs know", () => {
  assert.deepEqual(CLIS, ["bench.ts", "demo.ts", "fuzz.ts", "gateway.ts", "sim-replicas.ts", "sim.ts", "soak.ts"]);
});

// Two CLIs at a time (two spawns each): each spawn loads tsx and the CLI's imports, about a second of CPU.
for (let i = 0; i < CLIS.length; i += 2) {
  const pair = CLIS.slice(i, i + 2);
  test(`--help and an unknown flag: ${pair.join(", ")}`, async () => {
    await Promise.all(
      pair.map(async (file) => {
        const [help, unknown] = await Promise.all([run(file, ["--help"]), run(file, ["--no-such-flag"])]);
        assert.equal(help.code, 0, `${file} --help: exit 0; stderr: ${help.stderr}`);
        assert.equal(help.stderr, "", `${file} --help: nothing on stderr (no work started)`);
        assert.match(help.stdout, /^usage: /);
        for (const flag of [...parsedFlags(file), "help"]) {
          assert.match(help.stdout, new RegExp(`(^|[\\s,])--${flag}(?![\\w-])`, "m"), `${file} --help names --${flag}`);
        }
        assert.match(help.stdout, /-h, --help/);
        assertOneLineError(file, unknown, /Unknown option '--no-such-flag'; see --help$/);
      }),
    );
  });
}

test("-h is --help; a bad value is one line and exit 2", async () => {
  const [short, long, gateway, fuzz] = await Promise.all([
    run("bench.ts", ["-h"]),
    run("bench.ts", ["--help"]),
    run("gateway.ts", ["--upstream", "127.0.0.1:1", "--no-plugin", "--port", "eighty"]),
    run("fuzz.ts", ["--iterations", "many"]),
  ]);
  assert.equal(short.code, 0);
  assert.equal(short.stdout, long.stdout, "-h prints the same text as --help");
  assertOneLineError("gateway.ts", gateway, /--port must be a non-negative integer, got "eighty"/);
  assertOneLineError("fuzz.ts", fuzz, /--iterations must be a positive integer, got "many"/);
});
