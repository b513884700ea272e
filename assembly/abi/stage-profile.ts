// Stage marks for the bench's per-stage profile (src-host/bench/stage-profile.ts). They compile to nothing
// unless the build defines PROFILE_STAGES (asc --use PROFILE_STAGES=1, a bench-only build): then each mark is
// one call to the host, which timestamps it. Stages nest; the host charges time to the innermost open stage.

// @ts-ignore: decorator
@external("bench_profile", "stage_enter") declare function stage_enter(stage: i32): void;
// @ts-ignore: decorator
@external("bench_profile", "stage_leave") declare function stage_leave(): void;

/** Stage ids; the bench names them in the same order (src-host/bench/stage-profile.ts STAGE_NAMES). */
export enum Stage {
  Gc = 1,
  Context = 2,
  Gate = 3,
  BodyRead = 4,
  Headers = 5,
  Extract = 6,
  ChunkHash = 7,
  Snapshot = 8,
  IndexLookup = 9,
  SharedHints = 10,
  Scoring = 11,
  Route = 12,
  Record = 13,
  Telemetry = 14,
  Response = 15,
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
