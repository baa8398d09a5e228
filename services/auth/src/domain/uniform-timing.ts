/**
 * Equal response times for the endpoints that must not reveal whether an address has an account
 * (/recover, /magiclink, /otp, /resend). Their work differs a lot: for a known address a code is
 * stored and a message handed to SMTP or an SMS provider; for an unknown one there is a single
 * lookup. So every answer of such an endpoint is held back until a target time after the request
 * began: a high percentile of how long the real work has recently taken on this instance. A fast
 * answer (unknown address, or a quick send) then takes as long as a typical send; only sends slower
 * than the percentile take longer. Sleeping costs no CPU, so throughput is unaffected.
 */

const WINDOW = 64;
const PERCENTILE = 0.9;

export class UniformTiming {
  private readonly samples = new Map<string, number[]>();

  constructor(private readonly initialTargetMs = 25) {}

  /** How long answers of `key` are held: the recent 90th percentile of real work (an initial guess before any). */
  targetMs(key: string): number {
    const recent = this.samples.get(key);
    if (!recent || recent.length === 0) return this.initialTargetMs;
    const sorted = [...recent].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * PERCENTILE))] as number;
  }

  private record(key: string, ms: number): void {
    let recent = this.samples.get(key);
    if (!recent) {
      recent = [];
      this.samples.set(key, recent);
    }
    recent.push(ms);
    if (recent.length > WINDOW) recent.shift();
  }

  /**
   * Runs `work`, which reports whether it did the real (revealing) work, and answers its result no
   * sooner than the target time. Failures are held back the same way, then rethrown.
   */
  async run<T>(key: string, work: () => Promise<{ result: T; worked: boolean }>): Promise<T> {
    const started = performance.now();
    const target = this.targetMs(key);
    let outcome: { result: T; worked: boolean } | undefined;
    let failure: unknown;
    try {
      outcome = await work();
    } catch (error) {
      failure = error;
    }
    const elapsed = performance.now() - started;
    if (outcome?.worked) this.record(key, elapsed);
    if (elapsed < target) await new Promise((resolve) => setTimeout(resolve, target - elapsed));
    if (outcome === undefined) throw failure;
    return outcome.result;
  }
}
