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
// Modules the CLIs share, not CLIs themselves.
const HELPERS = ["report-path.ts"];
const CLIS = readdirSync(CLI_DIR).filter((f) => f.endsWith(".ts") && !HELPERS.includes(f)).sort();
/** The CLIs outside src-host/cli/, by path, and the tool name their errors start with. */
const OTHER_CLIS: Record<string, string> = { "src-host/backend/cli.ts": "backend", "src-host/package/cli.ts": "package" };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A spawn that has not exited by then is stuck, not slow: tsx alone takes seconds to start on a loaded CI box. */
const SPAWN_TIMEOUT_MS = 120_000;

/** `file` is a name in src-host/cli/ or a path from the repository root. */
function run(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  const path = file.includes("/") ? file : join("src-host/cli", file);
  return new Promise((done) => {
    execFile(process.execPath, ["--import", "tsx", path, ...args], { cwd: ROOT, timeout: SPAWN_TIMEOUT_MS, env }, (error, stdout, stderr) => {
      const killed = error?.killed ? `\n(killed after ${SPAWN_TIMEOUT_MS} ms)` : "";
      done({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr: stderr + killed });
    });
  });
}

/** The flag names in the options object a CLI passes to parseCliArgs. */
function parsedFlags(file: string): string[] {
  const source = readFileSync(file.includes("/") ? join(ROOT, file) : join(CLI_DIR, file), "utf8");
  const start = source.indexOf("parseCliArgs(");
  assert.ok(start >= 0, `${file} parses its arguments with parseCliArgs`);
  const block = source.slice(start, source.indexOf("});", start));
  const flags = [...block.matchAll(/^\s*"?([a-z][a-z-]*)"?: \{ type: "(?:string|boolean)"/gm)].map((m) => m[1]);
  assert.ok(flags.length > 0, `${file}: found its flags`);
  return flags;
}

function assertOneLineError(file: string, r: Run, pattern: RegExp): void {
  const tool = OTHER_CLIS[file] ?? file.replace(/\.ts$/, "");
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
const ALL_CLIS = [...CLIS, ...Object.keys(OTHER_CLIS)];
for (let i = 0; i < ALL_CLIS.length; i += 2) {
  const pair = ALL_CLIS.slice(i, i + 2);
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
  assertOneLineError("gateway.ts", gateway, /--port must be a non-negative integer up to 65535, got "eighty"/);
  assertOneLineError("fuzz.ts", fuzz, /--iterations must be a positive integer, got "many"/);
});

// Values each tool once took silently (a default, a wrapped seed), crashed on with a stack trace after start-up,
// or acted on destructively; every one is now refused before any work.
const BAD_VALUES: Array<[string, string[], RegExp]> = [
  ["gateway.ts", ["--upstream", "127.0.0.1:1", "--no-plugin", "--port", "99999"], /--port must be a non-negative integer up to 65535, got "99999"$/],
  ["gateway.ts", ["--upstream", "127.0.0.1:99999", "--no-plugin"], /bad port in upstream address "127\.0\.0\.1:99999"$/],
  ["gateway.ts", ["--upstream", "127.0.0.1:1", "--no-plugin", "--plugin", "build/higress.wasm"], /--no-plugin runs without a plugin/],
  ["gateway.ts", ["--upstream", "127.0.0.1:1", "--no-plugin", "--health-interval-ms", "0"], /--health-interval-ms must be a positive integer up to 2147483647, got "0"$/],
  ["sim.ts", ["--workload", "examples/workloads/multi-turn-chat-mix.json", "--health-check-ms", "Infinity"], /--health-check-ms must be a positive number, got "Infinity"$/],
  ["sim.ts", ["--workload", "examples/workloads/multi-turn-chat-mix.json", "--redis-rtt-ms", ""], /--redis-rtt-ms must be a non-negative number, got ""$/],
  ["sim.ts", ["--workload", "examples/workloads/multi-turn-chat-mix.json", "--policies", ""], /--policies is empty; see --help$/],
  ["sim.ts", ["--workload", "examples/workloads/multi-turn-chat-mix.json", "--seed", "4294967296"], /--seed must be a non-negative integer up to 4294967295, got "4294967296"$/],
  ["sim.ts", [], /--workload FILE is required; see --help$/],
  ["fuzz.ts", ["--seed", "4294967296", "--no-save"], /--seed must be a non-negative integer up to 4294967295, got "4294967296"$/],
  ["fuzz.ts", ["--seed=-1", "--no-save"], /--seed must be a non-negative integer up to 4294967295, got "-1"$/],
  ["sim-replicas.ts", ["--seeds", "1,4294967296"], /--seeds must be a non-negative integer up to 4294967295, got "4294967296"$/],
  ["sim.ts", ["--workload", "x", "--scale", "-1"], /written --scale=-VALUE\); see --help$/],
  ["sim.ts", ["--workload", "examples/workloads/multi-turn-chat-mix.json", "--report", "package.json/r.html"], /cannot write --report package\.json\/r\.html \(E[A-Z]+\)$/],
  ["demo.ts", ["--report", "package.json/r.html"], /cannot write --report package\.json\/r\.html \(E[A-Z]+\)$/],
  ["demo.ts", ["--workers", "100000"], /--workers must be a positive integer up to 64, got "100000"$/],
  ["src-host/backend/cli.ts", ["--port=-5"], /--port must be a non-negative integer up to 65535, got "-5"$/],
  ["src-host/backend/cli.ts", ["--kv-tokens", "8"], /--kv-tokens \(8\) must hold at least one block/],
  ["src-host/backend/cli.ts", ["--attention-ms-per-m-pairs=-1"], /--attention-ms-per-m-pairs must be a non-negative number, got "-1"$/],
  ["src-host/backend/cli.ts", ["--decode-ms-per-k-context", "fast"], /--decode-ms-per-k-context must be a non-negative number, got "fast"$/],
  ["src-host/package/cli.ts", ["--name", "../x", "--out", "build/oci-never"], /--name: image name must be lower-case letters/],
  ["src-host/package/cli.ts", ["--created", "yesterday", "--out", "build/oci-never"], /--created must be an RFC 3339 time/],
  ["src-host/package/cli.ts", ["--wasm", "package.json", "--out", "build/oci-never"], /package\.json is not a WebAssembly module/],
];

for (let i = 0; i < BAD_VALUES.length; i += 2) {
  const pair = BAD_VALUES.slice(i, i + 2);
  test(`bad values: ${pair.map(([f, a]) => `${f} ${a.join(" ")}`).join(", ")}`, async () => {
    const runs = await Promise.all(pair.map(([file, args]) => run(file, args)));
    pair.forEach(([file, , pattern], k) => assertOneLineError(file, runs[k], pattern));
  });
}

test("package: a SOURCE_DATE_EPOCH that is not whole seconds is one line, not a stack trace", async () => {
  const r = await run("src-host/package/cli.ts", ["--out", "build/oci-never"], { ...process.env, SOURCE_DATE_EPOCH: "abc" });
  assertOneLineError("src-host/package/cli.ts", r, /SOURCE_DATE_EPOCH must be whole seconds since 1970, got "abc"$/);
});
