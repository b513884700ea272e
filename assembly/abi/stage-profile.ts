// Stage marks for the bench's per-stage profile (src-host/bench/stage-profile.ts). They compile to nothing
// unless the build defines PROFILE_STAGES (asc --use PROFILE_STAGES=1, a bench-only build): then each mark is
// one call to the host, which timestamps it. Stages nest; the host charges time to the innermost open stage.

// @ts-ignore: decorator
@external("bench_profile", "stage_enter") declare function stage_enter(stage: i32): void;
// @ts-ignore: decorator
@external("bench_profile", "stage_leave") declare function stage_leave(): void;

/** Stage ids; the bench names them in the same order (src-host/bench/stage-profile.ts STAGE_NAMES). */
export namespace Stage {
  export const Gc: i32 = 1;
  export const Context: i32 = 2;
  export const Gate: i32 = 3;
  export const BodyRead: i32 = 4;
  export const Headers: i32 = 5;
  export const Extract: i32 = 6;
  export const ChunkHash: i32 = 7;
  export const Snapshot: i32 = 8;
  export const IndexLookup: i32 = 9;
  export const SharedHints: i32 = 10;
  export const Scoring: i32 = 11;
  export const Route: i32 = 12;
  export const Record: i32 = 13;
  export const Telemetry: i32 = 14;
  export const Response: i32 = 15;
}

// @ts-ignore: decorator
@inline export function stageEnter(stage: i32): void {
  // @ts-ignore: defined by --use in the profiling build only
  if (isDefined(PROFILE_STAGES)) stage_enter(stage);
}

// @ts-ignore: decorator
@inline export function stageLeave(): void {
  // @ts-ignore: defined by --use in the profiling build only
  if (isDefined(PROFILE_STAGES)) stage_leave();
}
