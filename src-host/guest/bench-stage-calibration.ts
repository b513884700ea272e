// Bench harness (src-host/bench/stage-profile.ts): empty stages, marked with the same host calls the
// profiling build makes (assembly/abi/stage-profile.ts), so the host can measure what one stage interval's
// marks cost and take it out of every stage.

// @ts-ignore: decorator
@external("bench_profile", "stage_enter") declare function stage_enter(stage: i32): void;
// @ts-ignore: decorator
@external("bench_profile", "stage_leave") declare function stage_leave(): void;

/** Marks `n` empty stages with the given id. */
export function markEmptyStages(stage: i32, n: i32): void {
  for (let i = 0; i < n; i++) {
    stage_enter(stage);
    stage_leave();
  }
}
