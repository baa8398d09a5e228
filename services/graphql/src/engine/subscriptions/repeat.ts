/**
 * A subscription answered by asking again (an asynchronous action's result, read from the
 * action log: `subscription { action(id: ...) { output ... } }`, as Hasura serves it): its answer
 * is asked for every refetch interval, after the previous one came, and pushed when it changed.
 * One such subscription reads one log row by its key; it is not multiplexed.
 */
import type { Subscriber } from "./poller.js";

export interface RepeatOptions {
  refetchMs: number;
  /** The answer when asking failed (the error's response body). */
  failed(error: unknown): string;
}

/** Serves `subscriber` the answers `ask` gives; returns how it stops. */
export function repeat(ask: () => Promise<string>, subscriber: Subscriber, options: RepeatOptions): () => void {
  let stopped = false;
  let last: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  const run = async () => {
    let body: string;
    try {
      body = await ask();
    } catch (error) {
      body = options.failed(error);
    }
    if (stopped) return;
    if (body !== last) {
      last = body;
      subscriber.push(body);
    }
    timer = setTimeout(() => void run(), options.refetchMs);
  };
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
