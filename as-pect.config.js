// as-pect runs the AssemblyScript unit tests in tests/as against the pure modules of assembly/.
export default {
  // ASPECT_ONLY=tests/as/foo.spec.ts runs a subset while working on one module.
  entries: process.env.ASPECT_ONLY ? process.env.ASPECT_ONLY.split(",") : ["tests/as/**/*.spec.ts"],
  include: ["tests/as/**/*.include.ts"],
  disclude: [/node_modules/],
  async instantiate(memory, createImports, instantiate, binary) {
    return instantiate(binary, createImports({ env: { memory } }));
  },
  outputBinary: false,
};
