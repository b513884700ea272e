// as-pect runs the AssemblyScript unit tests in tests/as against the pure modules of assembly/.
// Shared data as a host without a stored value: every read answers NotFound (1), a write Ok (0). Enough for a
// module that writes its own value and reads it back as its buffer (core/shared-load.ts, load-view.spec.ts).
const sharedDataStub = {
  proxy_get_shared_data: () => 1,
  proxy_set_shared_data: () => 0,
};

export default {
  // ASPECT_ONLY=tests/as/foo.spec.ts runs a subset while working on one module.
  entries: process.env.ASPECT_ONLY ? process.env.ASPECT_ONLY.split(",") : ["tests/as/**/*.spec.ts"],
  include: ["tests/as/**/*.include.ts"],
  disclude: [/node_modules/],
  async instantiate(memory, createImports, instantiate, binary) {
    return instantiate(binary, createImports({ env: { memory, ...sharedDataStub } }));
  },
  outputBinary: false,
};
