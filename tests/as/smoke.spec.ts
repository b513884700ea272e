describe("toolchain", () => {
  it("compiles and runs AssemblyScript", () => {
    expect<i32>(2 + 2).toBe(4);
  });
});
