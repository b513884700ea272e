// Compiles an AssemblyScript test fixture with the project's asconfig, once per test process.
import asc from "assemblyscript/asc";

const cache = new Map<string, Promise<Uint8Array>>();

export function compileFixture(entry: string, target: "debug" | "release" = "debug"): Promise<Uint8Array> {
  const key = `${entry}@${target}`;
  let p = cache.get(key);
  if (!p) {
    p = (async () => {
      let binary: Uint8Array | null = null;
      const { error, stderr } = await asc.main([entry, "--config", "asconfig.json", "--target", target, "--outFile", "out.wasm"], {
        writeFile(name: string, contents: Uint8Array | string) {
          if (name.endsWith(".wasm")) binary = contents as Uint8Array;
        },
      });
      if (error || !binary) throw new Error(`asc ${entry}: ${error?.message}\n${stderr.toString()}`);
      return binary;
    })();
    cache.set(key, p);
  }
  return p;
}
