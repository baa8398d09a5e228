/**
 * Parameter slots: how one compiled query plan serves every request of the same operation.
 *
 * Before a query is planned, its variables are walked with their GraphQL types (plan/slots.ts). Leaves of
 * scalar types other than Boolean (strings, numbers, ids, json values...) become `Slot`s: the
 * compiler binds them as parameters without looking at them. Everything else (null, booleans,
 * enum values, the keys of input objects, the length of lists) can change the SQL text, so it
 * goes into the plan's signature. A cached plan is reused for any request whose signature is
 * equal, its slots read from that request's variables and session. Long numbers (JsonNumbers)
 * are bound as their text.
 */
import { missingSessionVariable } from "../errors/index.js";
import { JsonNumber, toParam } from "../json/number.js";
import type { Variables } from "../plan/values.js";
import type { Session } from "../request/session.js";

export interface SlotInput {
  variables: Variables;
  session: Session;
  /** A stream's current cursor (its last batch's last value, as text): where its next batch starts. */
  cursor?: string | undefined;
}

/** A value known only when a plan runs: read from the request, then transformed. */
export class Slot {
  constructor(readonly read: (input: SlotInput) => unknown) {}

  /** Slots stand for "some value" in a plan's signature. */
  toJSON(): string {
    return "\u0001";
  }
}

/** Applies `fn` now to a known value, or when the plan runs to a slot's value. */
export function mapValue(value: unknown, fn: (value: unknown) => unknown): unknown {
  return value instanceof Slot ? new Slot((input) => fn(value.read(input))) : fn(value);
}

/** A session variable read when the plan runs; a missing one is Hasura's error. */
export function sessionSlot(name: string): Slot {
  return new Slot(({ session }) => {
    const value = session.variables[name];
    if (value === undefined) throw missingSessionVariable(name);
    return value;
  });
}

/** A plan's parameters for one request: slots read, arrays of slots read item by item. */
export function resolveParams(params: readonly unknown[], input: SlotInput): unknown[] {
  return params.map((p) => {
    if (p instanceof Slot) return toParam(p.read(input));
    if (Array.isArray(p) && p.some((item) => item instanceof Slot || item instanceof JsonNumber))
      return p.map((item) => toParam(item instanceof Slot ? item.read(input) : item));
    return toParam(p);
  });
}
