/** At most `limit` holders at once; the others wait in order (first come, first served). */
export class Semaphore {
  private held = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Holders now. */
  get active(): number {
    return this.held;
  }

  /** Waiting to hold. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Resolves with a release function once a place is free; rejects with the signal's
   * reason when it aborts first (the waiter leaves the queue).
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.held < this.limit) {
      this.held++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const take = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.held++;
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const at = this.queue.indexOf(take);
        if (at >= 0) this.queue.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(take);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.held--;
      this.queue.shift()?.();
    };
  }
}
