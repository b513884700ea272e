// A count of scanner steps that several JsonScanners can draw from, so nested re-scans of parts of one
// document share a single limit.
export class StepBudget {
  left: i32;

  constructor(left: i32 = 0) {
    this.left = left;
  }
}
