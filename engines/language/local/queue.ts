// Turns a callback producer (text chunks from the model) into an async iterator for streaming.

export class ChunkQueue<T> {
  private items: T[] = [];
  private waiting?: () => void;
  private ended = false;
  private failure?: unknown;

  push(item: T): void {
    this.items.push(item);
    this.wake();
  }

  end(err?: unknown): void {
    this.ended = true;
    this.failure = err;
    this.wake();
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  async *drain(): AsyncGenerator<T> {
    for (;;) {
      while (this.items.length) yield this.items.shift() as T;
      if (this.ended) {
        if (this.failure !== undefined) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }
}
