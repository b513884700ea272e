// The WASI functions Envoy implements for modules built for wasm32-wasi (proxy-wasm-cpp-host src/exports.cc
// wasi_unstable_*): errno results, 21 (EFAULT) for a buffer outside memory.
import { LogLevel } from "../abi.ts";
import { InvalidMemoryAccess } from "../guest-memory.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

const EFAULT = 21;
const EINVAL = 28;
const ENOSYS = 52;
/** cpp-host include/proxy-wasm/limits.h PROXY_WASM_HOST_WASI_RANDOM_GET_MAX_SIZE_BYTES. */
const RANDOM_GET_MAX_BYTES = 64 * 1024;

export function wasiCalls(scope: ImportScope): HostFunctions {
  const { vm, mem } = scope;

  return {
    // writevImpl: what was written is logged (info for stdout, error for stderr) without a trailing newline; nothing
    // written, nothing logged.
    "wasi_snapshot_preview1.fd_write": (fd: number, iovs: number, iovsLen: number, retWritten: number) => {
      if (fd !== 1 && fd !== 2) return 8; // BADF
      let text = "";
      let total = 0;
      const view = mem();
      for (let i = 0; i < iovsLen; i++) {
        const head = view.read(iovs + i * 8, 8);
        const dv = new DataView(head.buffer);
        const p = dv.getUint32(0, true);
        const l = dv.getUint32(4, true);
        text += view.readString(p, l);
        total += l;
      }
      if (total > 0) vm.options.log(fd === 1 ? LogLevel.Info : LogLevel.Error, text.replace(/\n$/, ""), vm);
      view.writeU32(retWritten, total);
      return 0;
    },
    "wasi_snapshot_preview1.fd_read": () => 8,
    // fd_seek and fd_close: ContextBase::error (Envoy's Context::error logs at trace) and success.
    "wasi_snapshot_preview1.fd_seek": () => 0,
    "wasi_snapshot_preview1.fd_close": () => 0,
    // stdout and stderr only: a zeroed fdstat whose fs_rights_base is __WASI_RIGHTS_FD_WRITE.
    "wasi_snapshot_preview1.fd_fdstat_get": (fd: number, statPtr: number) => {
      if (fd !== 1 && fd !== 2) return 8;
      mem().writeU64(statPtr, 0n);
      mem().writeU64(statPtr + 8, 64n);
      mem().writeU64(statPtr + 16, 0n);
      return 0;
    },
    "wasi_snapshot_preview1.fd_prestat_get": () => 8,
    "wasi_snapshot_preview1.fd_prestat_dir_name": () => ENOSYS,
    "wasi_snapshot_preview1.environ_sizes_get": (retCount: number, retSize: number) => {
      mem().writeU32(retCount, 0);
      mem().writeU32(retSize, 0);
      return 0;
    },
    "wasi_snapshot_preview1.environ_get": () => 0,
    "wasi_snapshot_preview1.args_sizes_get": (retArgc: number, retSize: number) => {
      mem().writeU32(retArgc, 0);
      mem().writeU32(retSize, 0);
      return 0;
    },
    "wasi_snapshot_preview1.args_get": () => 0,
    "wasi_snapshot_preview1.clock_time_get": (clockId: number, _precision: bigint, retPtr: number) => {
      if (clockId !== 0 && clockId !== 1) return 58; // NOTSUP
      mem().writeU64(retPtr, vm.options.clock.nowNs());
      return 0;
    },
    "wasi_snapshot_preview1.random_get": (ptr: number, len: number) => {
      len >>>= 0;
      if (len > RANDOM_GET_MAX_BYTES) return EINVAL;
      if (len === 0) return 0;
      let target: Uint8Array;
      try {
        target = mem().bytesAt(ptr, len);
      } catch (e) {
        if (e instanceof InvalidMemoryAccess) return EFAULT;
        throw e;
      }
      crypto.getRandomValues(target);
      return 0;
    },
    "wasi_snapshot_preview1.sched_yield": () => 0,
    "wasi_snapshot_preview1.poll_oneoff": () => 58,
    // Envoy logs proc_exit and carries on; it must not unwind the host.
    "wasi_snapshot_preview1.proc_exit": (code: number) => {
      vm.options.log(LogLevel.Warn, `proc_exit(${code}) ignored`, vm);
    },
  };
}
