// Replaces AssemblyScript's `env.abort` import (Envoy provides none). An abort is a bug or an exhausted
// allocator: log what we can through proxy_log, then trap so the host applies its failure policy
// (FAIL_OPEN lets the request through untouched).
import { proxy_log } from "./imports";
import { LogLevel } from "./types";

const ABORT_MESSAGE: usize = memory.data<u8>([
  0x65, 0x6e, 0x64, 0x70, 0x6f, 0x69, 0x6e, 0x74, 0x2d, 0x70, 0x69, 0x63, 0x6b, 0x65, 0x72, 0x3a,
  0x20, 0x61, 0x62, 0x6f, 0x72, 0x74,
]); // "endpoint-picker: abort"

export function abortHandler(message: string | null, fileName: string | null, line: u32, column: u32): void {
  // No allocation here: the allocator itself may be what failed.
  proxy_log(LogLevel.Critical, ABORT_MESSAGE, 22);
  unreachable();
}
