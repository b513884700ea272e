// The WASI functions Envoy implements for modules built for wasm32-wasi.
import { LogLevel } from "../abi.ts";
import type { HostFunctions, ImportScope } from "./scope.ts";

export function wasiCalls(scope: ImportScope): HostFunctions {
  const { vm, mem } = scope;

  return {
    // WASI functions Envoy implements for modules built for wasm32-wasi.
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
      vm.options.log(fd === 1 ? LogLevel.Info : LogLevel.Error, text.replace(/\n$/, ""), vm);
      view.writeU32(retWritten, total);
      return 0;
    },
    "wasi_snapshot_preview1.fd_read": () => 8,
    "wasi_snapshot_preview1.fd_seek": () => 8,
    "wasi_snapshot_preview1.fd_close": () => 8,
    "wasi_snapshot_preview1.fd_fdstat_get": () => 8,
    "wasi_snapshot_preview1.fd_prestat_get": () => 8,
    "wasi_snapshot_preview1.fd_prestat_dir_name": () => 8,
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
      const bytes = crypto.getRandomValues(new Uint8Array(len >>> 0));
      mem().read(ptr, len); // bounds check
      new Uint8Array((vm.instance.exports.memory as WebAssembly.Memory).buffer).set(bytes, ptr >>> 0);
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
