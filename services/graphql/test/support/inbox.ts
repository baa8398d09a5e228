/**
 * What the poller suites subscribe with when they drive the runtime directly (no socket): an
 * inbox collecting each answer's JSON, and a wait for a condition with a deadline.
 */

/** A subscriber that keeps every answer pushed to it, parsed. */
export class Inbox {
  readonly bodies: unknown[] = [];
  push = (body: string) => {
    this.bodies.push(JSON.parse(body));
  };
  get last(): unknown {
    return this.bodies[this.bodies.length - 1];
  }
}

/** Resolves once `check` holds, checked every 10 ms; throws after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await sleep(10);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
