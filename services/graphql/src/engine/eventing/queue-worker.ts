/**
 * Delivers the rows of a work queue in the database, on every engine instance at once (the
 * queue's `take` shares the work out with FOR UPDATE SKIP LOCKED): at most `httpPoolSize`
 * deliveries at a time, rows taken `fetchBatchSize` at a time, as Hasura does for events
 * (https://hasura.io/docs/latest/event-triggers/observability-and-performance/). Event triggers'
 * events (worker.ts) and scheduled triggers' events (scheduled-worker.ts) are such queues.
 *
 * When to look: when told (`wake`), when a retry falls due, and every `fetchIntervalMs` in any
 * case. An interval of 0 turns delivery off on the instance.
 *
 * Leases: the rows an instance holds have their lease renewed every third of `leaseMs`, so a
 * slow handler's row is never taken by another instance while it runs. Should renewals fail for
 * two thirds of the lease (the database unreachable), the deliveries in flight are abandoned
 * before the lease can run out. A dead instance's rows are taken over once their lease is over;
 * on a graceful stop, the instance waits a little for its deliveries, then gives the rest back.
 * Attempts are recorded in batches: a row's state and its invocation log in one transaction.
 */

/**
 * A wake-up waits this long before looking, so that the rows of many small transactions
 * committed together are taken in one statement.
 */
const WAKE_GATHER_MS = 5;
/** Attempts are recorded together: up to this many, or what finished within RECORD_GATHER_MS. */
const RECORD_BATCH = 100;
const RECORD_GATHER_MS = 5;

export interface QueueWorkerOptions {
  httpPoolSize: number;
  /** 0: this instance delivers nothing. */
  fetchIntervalMs: number;
  fetchBatchSize: number;
  leaseMs: number;
  env: Record<string, string | undefined>;
  /** How long a graceful stop waits for deliveries in flight. */
  stopGraceMs?: number;
}

export interface WorkerLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** An attempt's result: what to record, and when to look again if it is to be retried. */
export interface Tried<R> {
  record: R;
  retryAfterMs?: number;
}

export abstract class QueueWorker<T, R> {
  private readonly held = new Map<string, { item: T; controller: AbortController; done: Promise<void> }>();
  private pumping: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private poll: NodeJS.Timeout | undefined;
  private renew: NodeJS.Timeout | undefined;
  private retry: { timer: NodeJS.Timeout; at: number } | undefined;
  private lastRenewal = Date.now();
  private gathering: NodeJS.Timeout | undefined;
  /** Attempts waiting to be recorded, each with what to call once it is. */
  private toRecord: Array<{ record: R; recorded: () => void }> = [];
  private recordTimer: NodeJS.Timeout | undefined;

  constructor(
    protected readonly options: QueueWorkerOptions,
    protected readonly logger?: WorkerLogger,
    /** What the rows are, for the log ("event", "scheduled event"). */
    private readonly what = "event",
  ) {}

  /** Takes up to `limit` due rows that no live lease holds. */
  protected abstract take(limit: number): Promise<T[]>;
  protected abstract keyOf(item: T): string;
  protected abstract renewLeases(items: T[]): Promise<void>;
  /** Gives rows back: another instance may take them at once. */
  protected abstract release(items: T[]): Promise<void>;
  /** One attempt; undefined when the row was given back instead. */
  protected abstract attempt(item: T, signal: AbortSignal): Promise<Tried<R> | undefined>;
  /** Records attempts, in one transaction. */
  protected abstract recordAll(records: R[]): Promise<void>;
  /** Whether there can be anything to take (e.g. there are triggers). */
  protected hasWork(): boolean {
    return true;
  }

  get leaseMs(): number {
    return this.options.leaseMs;
  }

  get enabled(): boolean {
    return this.options.fetchIntervalMs > 0;
  }

  start(): void {
    if (!this.enabled || !this.stopped) return;
    this.stopped = false;
    this.poll = setInterval(() => this.wake(), this.options.fetchIntervalMs);
    this.poll.unref();
    this.renew = setInterval(() => void this.renewHeld(), Math.max(100, Math.floor(this.options.leaseMs / 3)));
    this.renew.unref();
    this.wake();
  }

  /** Looks for due rows in a few milliseconds (or as soon as the current look is done). */
  wake(): void {
    if (this.stopped || this.gathering) return;
    this.gathering = setTimeout(() => {
      this.gathering = undefined;
      this.look();
    }, WAKE_GATHER_MS);
  }

  private look(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.again) {
        this.again = false;
        this.look();
      }
    });
  }

  private async pump(): Promise<void> {
    while (!this.stopped && this.hasWork()) {
      const free = this.options.httpPoolSize - this.held.size;
      const wanted = Math.min(free, this.options.fetchBatchSize);
      if (wanted <= 0) return;
      let items: T[];
      try {
        items = await this.take(wanted);
      } catch (error) {
        this.logger?.warn({ err: error }, `${this.what}s could not be fetched; trying again at the next interval`);
        return;
      }
      for (const item of items) this.startDelivery(item);
      if (items.length < wanted) return;
    }
  }

  private startDelivery(item: T): void {
    const key = this.keyOf(item);
    const controller = new AbortController();
    const done = this.handle(item, controller.signal)
      .catch((error: unknown) => {
        if (!controller.signal.aborted) this.logger?.error({ err: error, id: key }, `${this.what} delivery failed unexpectedly`);
      })
      .finally(() => {
        this.held.delete(key);
        this.wake();
      });
    this.held.set(key, { item, controller, done });
  }

  private async handle(item: T, signal: AbortSignal): Promise<void> {
    const tried = await this.attempt(item, signal);
    if (!tried || signal.aborted) return;
    await this.record(tried.record);
    if (tried.retryAfterMs !== undefined) this.wakeAfter(tried.retryAfterMs);
  }

  /** Resolves once the attempt is recorded, with others that finished about the same time. */
  private record(record: R): Promise<void> {
    return new Promise((resolve) => {
      this.toRecord.push({ record, recorded: resolve });
      if (this.toRecord.length >= RECORD_BATCH) void this.flush();
      else this.recordTimer ??= setTimeout(() => void this.flush(), RECORD_GATHER_MS);
    });
  }

  private async flush(): Promise<void> {
    clearTimeout(this.recordTimer);
    this.recordTimer = undefined;
    const batch = this.toRecord;
    this.toRecord = [];
    if (batch.length === 0) return;
    try {
      await this.recordAll(batch.map((b) => b.record));
    } catch (error) {
      // Not recorded: the rows stay leased, and are delivered again once their leases are over.
      this.logger?.error(
        { err: error, count: batch.length },
        `${this.what} deliveries could not be recorded; they will be delivered again`,
      );
    }
    for (const b of batch) b.recorded();
  }

  /** One timer, for the earliest retry due. */
  private wakeAfter(ms: number): void {
    const at = Date.now() + ms;
    if (this.retry && this.retry.at <= at) return;
    if (this.retry) clearTimeout(this.retry.timer);
    const timer = setTimeout(() => {
      this.retry = undefined;
      this.wake();
    }, ms);
    timer.unref();
    this.retry = { timer, at };
  }

  private async renewHeld(): Promise<void> {
    const items = [...this.held.values()].map((h) => h.item);
    try {
      if (items.length > 0) await this.renewLeases(items);
      this.lastRenewal = Date.now();
    } catch (error) {
      const since = Date.now() - this.lastRenewal;
      this.logger?.warn({ err: error, held: items.length, sinceRenewalMs: since }, `${this.what} leases could not be renewed`);
      if (since >= (this.options.leaseMs * 2) / 3) {
        // The leases may run out before they can be renewed: another instance may take these rows.
        for (const { controller } of this.held.values()) controller.abort(new Error(`${this.what} lease lost`));
      }
    }
  }

  /** Stops taking rows, waits a little for deliveries in flight, then gives the rest back. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.poll);
    clearInterval(this.renew);
    clearTimeout(this.gathering);
    this.gathering = undefined;
    if (this.retry) clearTimeout(this.retry.timer);
    await this.pumping;
    const inFlight = [...this.held.values()].map((h) => h.done);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(inFlight),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.stopGraceMs ?? 5000);
      }),
    ]);
    clearTimeout(timer);
    const left = [...this.held.values()].map((h) => h.item);
    for (const { controller } of this.held.values()) controller.abort(new Error("the engine is stopping"));
    await this.flush();
    await Promise.all([...this.held.values()].map((h) => h.done));
    try {
      if (left.length > 0) await this.release(left);
    } catch (error) {
      this.logger?.warn(
        { err: error, count: left.length },
        `${this.what}s could not be given back; they are taken over when their lease is over`,
      );
    }
  }
}
