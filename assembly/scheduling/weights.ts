// Relative importance of each scoring signal. The total score divides by sum(), the configured weight sum, so a
// signal a candidate lacks earns it nothing rather than being dropped from its average.
// A negative or NaN weight counts as 0.

// @ts-ignore: decorator
@inline
export function effectiveWeight(w: f64): f64 {
  return w > 0 && w < Infinity ? w : 0;
}

export class Weights {
  queue: f64 = 2;
  kvCache: f64 = 2;
  prefixCache: f64 = 3;
  inflight: f64 = 1;
  loraAffinity: f64 = 0;
  failure: f64 = 0;
  session: f64 = 0;

  sum(): f64 {
    return (
      effectiveWeight(this.queue) +
      effectiveWeight(this.kvCache) +
      effectiveWeight(this.prefixCache) +
      effectiveWeight(this.inflight) +
      effectiveWeight(this.loraAffinity) +
      effectiveWeight(this.failure) +
      effectiveWeight(this.session)
    );
  }

  copyFrom(o: Weights): void {
    this.queue = o.queue;
    this.kvCache = o.kvCache;
    this.prefixCache = o.prefixCache;
    this.inflight = o.inflight;
    this.loraAffinity = o.loraAffinity;
    this.failure = o.failure;
    this.session = o.session;
  }
}
