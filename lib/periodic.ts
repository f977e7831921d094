/**
 * A background pass run every `intervalMs` in a process (the workers' sweeper of unstarted runs
 * and digest filler): never two passes at once, the next one `intervalMs` after the previous one
 * ended, a failed pass handed to `onError` and the schedule kept. `stop()` cancels the next pass
 * and waits for the one under way.
 */
export class PeriodicPass {
  private timer: NodeJS.Timeout | null = null;
  private busy: Promise<void> | null = null;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** True between start() and stop(): a long pass may check it to end early. */
  get running(): boolean {
    return this.timer !== null;
  }

  start(): void {
    const tick = () => {
      this.busy = this.pass()
        .then(() => undefined)
        .catch(this.onError)
        .finally(() => {
          this.busy = null;
          if (this.timer !== null) this.timer = setTimeout(tick, this.intervalMs);
        });
    };
    this.timer = setTimeout(tick, this.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.busy;
  }
}
