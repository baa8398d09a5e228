/**
 * Password hashing (bcrypt on the libuv thread pool, never on the event loop) and the password
 * policy. A sign-in for an unknown user is checked against a dummy hash of the same cost, so it
 * takes as long as a wrong password.
 */
import { randomBytes } from "node:crypto";
import { hash, verify } from "@node-rs/bcrypt";
import { type Counter, createNoopMeter, type Meter } from "@opentelemetry/api";
import { errors } from "./errors.js";
import { verifyStoredHash } from "./password-hashes.js";

/** bcrypt reads at most 72 bytes of a password. */
export const MAX_PASSWORD_BYTES = 72;

export interface PasswordPolicy {
  minLength: number;
  requiredCharacters: string[];
}

export interface Weakness {
  message: string;
  reasons: string[];
}

/** What is wrong with a password under the policy, or undefined when nothing is. */
export function weaknessOf(password: string, policy: PasswordPolicy): Weakness | undefined {
  const reasons: string[] = [];
  const messages: string[] = [];
  if ([...password].length < policy.minLength) {
    reasons.push("length");
    messages.push(`Password should be at least ${policy.minLength} characters.`);
  }
  if (policy.requiredCharacters.some((set) => ![...set].some((char) => password.includes(char)))) {
    reasons.push("characters");
    messages.push(`Password should contain at least one character of each: ${policy.requiredCharacters.join(", ")}.`);
  }
  return reasons.length > 0 ? { message: messages.join(" "), reasons } : undefined;
}

/** Throws the validation or weak_password error a new password deserves. */
export function checkNewPassword(password: string, policy: PasswordPolicy): void {
  if (Buffer.byteLength(password, "utf8") > MAX_PASSWORD_BYTES) throw errors.passwordTooLong(MAX_PASSWORD_BYTES);
  const weakness = weaknessOf(password, policy);
  if (weakness) throw errors.weakPassword(weakness.message, weakness.reasons);
}

/**
 * At most `size` jobs at once, the rest queued in order. Hashing runs on libuv's threads, but
 * with every core busy hashing the event loop waits for a core: leaving one free keeps
 * /health and every other request fast while sign-ins queue.
 */
export class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

/** GoTrue's counters of hashing work, so dashboards built on them keep working. */
function hashingCounters(meter: Meter) {
  const counter = (name: string, description: string) => meter.createCounter(name, { description });
  return {
    hashSubmitted: counter("gotrue_generate_from_password_submitted", "Password hashes requested"),
    hashCompleted: counter("gotrue_generate_from_password_completed", "Password hashes computed"),
    compareSubmitted: counter("gotrue_compare_hash_and_password_submitted", "Password comparisons requested"),
    compareCompleted: counter("gotrue_compare_hash_and_password_completed", "Password comparisons computed"),
  };
}

/** Counts a job as submitted now and as completed when it settles. */
async function counted<T>(submitted: Counter, completed: Counter, job: () => Promise<T>): Promise<T> {
  submitted.add(1);
  try {
    return await job();
  } finally {
    completed.add(1);
  }
}

export class PasswordHasher {
  private readonly dummy: Promise<string>;
  private readonly slots: Slots;
  private readonly counters: ReturnType<typeof hashingCounters>;

  constructor(
    private readonly cost: number,
    /** Hashing jobs at once (PASSWORD_HASH_CONCURRENCY). */
    concurrency: number,
    meter: Meter = createNoopMeter(),
  ) {
    this.slots = new Slots(concurrency);
    this.counters = hashingCounters(meter);
    this.dummy = hash(randomBytes(24).toString("base64"), { cost });
    // A rejected dummy would surface on first use; keep it from being an unhandled rejection meanwhile.
    this.dummy.catch(() => {});
  }

  hash(password: string): Promise<string> {
    const { hashSubmitted, hashCompleted } = this.counters;
    return counted(hashSubmitted, hashCompleted, () => this.slots.run(() => hash(password, { cost: this.cost })));
  }

  /** Compares against the stored hash, or against the dummy hash when there is none. */
  async verify(password: string, stored: string | null | undefined): Promise<boolean> {
    const { compareSubmitted, compareCompleted } = this.counters;
    if (!stored) {
      const dummy = await this.dummy;
      await counted(compareSubmitted, compareCompleted, () => this.slots.run(() => verify(password, dummy)));
      return false;
    }
    return counted(compareSubmitted, compareCompleted, () => this.slots.run(() => verifyStoredHash(password, stored)));
  }
}
