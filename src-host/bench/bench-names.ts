// The benches `npm run bench --only` accepts (kept apart so the CLI can check its arguments before it loads
// the compiler and the plugin).
export const BENCH_NAMES = ["decision", "profile", "xxh64", "index", "memory"] as const;
export type BenchName = (typeof BENCH_NAMES)[number];
