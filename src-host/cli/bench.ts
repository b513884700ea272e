// Runs the benchmarks (docs in src-host/bench/bench-suite.ts):
//   tsx src-host/cli/bench.ts [--json] [--quick] [--only decision|profile|xxh64|index|memory ...]
// --json prints one JSON object on stdout; progress goes to stderr. --only may repeat or take a comma list.
// Needs build/higress.wasm (npm run build).
import { BENCH_NAMES, type BenchName } from "../bench/bench-names.ts";
import { parseCliArgs, usageError } from "../util/cli-args.ts";

const USAGE = `usage: npm run bench -- [options]   (needs build/higress.wasm: npm run build)
  --json         print one JSON object on stdout; progress goes to stderr
  --quick        fewer iterations, for a smoke test
  --only NAMES   run only these benches (repeat, or a comma list; default all: ${BENCH_NAMES.join(", ")})
  -h, --help     print this text and exit`;

const TOOL = "bench";
const values = parseCliArgs(TOOL, USAGE, {
  json: { type: "boolean", default: false },
  quick: { type: "boolean", default: false },
  only: { type: "string", multiple: true, default: [] },
});

function fail(message: string): never {
  usageError(TOOL, message);
}

const only = values.only.flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
for (const name of only) {
  if (!(BENCH_NAMES as readonly string[]).includes(name)) fail(`unknown bench "${name}"; choose from ${BENCH_NAMES.join(", ")}`);
}

try {
  // Loaded after the arguments are checked: the suite pulls in the AssemblyScript compiler.
  const { runBenchmarks } = await import("../bench/bench-suite.ts");
  const { formatReport } = await import("../bench/report-text.ts");
  const report = await runBenchmarks({
    quick: values.quick,
    only: only as BenchName[],
    progress: (line) => process.stderr.write(line + "\n"),
  });
  process.stdout.write(values.json ? JSON.stringify(report) + "\n" : formatReport(report));
} catch (e) {
  // The compiler's binaryen installs an uncaughtException handler that prints its whole source; stay short.
  process.stderr.write(`bench: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
}
