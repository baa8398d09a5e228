/**
 * Hasura's Validate monad as its remote schema permission checks use it
 * (server/src-lib/Hasura/RemoteSchema/SchemaCache/Permission.hs): a "disputed" problem is noted
 * and the check goes on; a "refuted" one ends the check it is part of.
 */
/** A refuted check: it stops the check it belongs to (the reasons are in the Validation). */
export class Refuted extends Error {}

/** The role's document is not a subset of the remote's schema; `reasons` are Hasura's. */
export class RoleSchemaInvalid extends Error {
  constructor(readonly reasons: string[]) {
    super(reasons.join("; "));
  }
}

/** Hasura's ValidateT: reasons gathered in order; `each` checks every item, as its traverse does. */
export class Validation {
  readonly reasons: string[] = [];

  dispute(reason: string): void {
    this.reasons.push(reason);
  }

  refute(reason: string): never {
    this.reasons.push(reason);
    throw new Refuted(reason);
  }

  each<T, R>(items: readonly T[], check: (item: T) => R): R[] {
    const out: R[] = [];
    let failed = false;
    for (const item of items) {
      try {
        out.push(check(item));
      } catch (error) {
        if (!(error instanceof Refuted)) throw error;
        failed = true;
      }
    }
    if (failed) throw new Refuted("");
    return out;
  }
}

export const dq = (s: string) => `"${s}"`;
