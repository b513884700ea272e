// as-pect runs the AssemblyScript unit tests in tests/as against the pure modules of assembly/.
export default {
  entries: ["tests/as/**/*.spec.ts"],
  include: ["tests/as/**/*.include.ts"],
  disclude: [/node_modules/],
  async instantiate(memory, createImports, instantiate, binary) {
    return instantiate(binary, createImports({ env: { memory } }));
  },
  outputBinary: false,
};
