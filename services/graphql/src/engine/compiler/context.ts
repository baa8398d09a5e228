/** State shared while compiling one operation's plan: fresh table aliases, the session, the role's view of the model. */
import { ident, type Sql, sql } from "@platform/core";
import { missingSessionVariable, noSelectPermission, operationSizeLimitExceeded, untrackedTable } from "../errors/index.js";
import { LIMIT_SETTINGS } from "../limits/statements.js";
import { type SelectAccess, selectAccess } from "../model/access.js";
import type { Model, TableModel } from "../model/types.js";
import type { Session } from "../request/session.js";
import { sessionSlot } from "./slot.js";

export interface CompileOptions {
  booleanNullCollapse: boolean;
  stringifyNumeric?: boolean;
  /** The longest pattern `_regex`, `_iregex`, `_similar` and their negations take (PGlite: patternTooLong). */
  maxPatternLength?: number | undefined;
  /** The longest operand any pattern operator (`_like` and `_ilike` families too) takes from the session's role. */
  patternLength?: number | undefined;
  /** The most subqueries (aliased tables and sub-selects) one operation's statements may hold: compiling stops past it. */
  maxSubqueries?: number | undefined;
}

/**
 * What a compiled statement reads: the tables (`schema.name`) whose writes can change its answer,
 * and what else it reads whose changes the engine cannot observe (a view or another relation that
 * is not a plain table, a function's body), each named. A live query whose statement reads only
 * tables can be polled when one of them changed; one that reads anything opaque cannot.
 */
export interface Dependencies {
  tables: Set<string>;
  opaque: Set<string>;
}

export class CompileContext {
  private aliases = 0;
  /** What the statements compiled with this context read (every FROM goes through `relation`). */
  readonly reads: Dependencies = { tables: new Set(), opaque: new Set() };

  constructor(
    readonly model: Model,
    readonly session: Session,
    readonly options: CompileOptions,
    /** True when compiling a reusable plan: session variables become slots read when it runs. */
    readonly planning = false,
  ) {}

  /**
   * A table alias unique within the statement. Every table and sub-select read gets one, so their
   * count is the statement's size (limits/statements.ts); compiling stops once the operation's
   * statements would hold more than `maxSubqueries`, before more SQL is built.
   */
  alias(): string {
    this.aliases += 1;
    const limit = this.options.maxSubqueries;
    if (limit !== undefined && this.aliases > limit)
      throw operationSizeLimitExceeded(limit, "subqueries", { found: this.aliases, setting: LIMIT_SETTINGS.subqueriesPerOperation });
    return `_t${this.aliases}`;
  }

  /** The subqueries (aliases) made so far. */
  get subqueries(): number {
    return this.aliases;
  }

  /** A tracked table or view as a statement reads it, recorded as a dependency. */
  relation(table: TableModel): Sql {
    const name = `${table.schema}.${table.name}`;
    if (table.kind === "table" || table.kind === "partitioned_table") this.reads.tables.add(name);
    else this.reads.opaque.add(`${table.kind.replace("_", " ")} ${name}`);
    return sql`${ident(table.schema, table.name)}`;
  }

  /** A function called by a statement: what it reads is not known. */
  callsFunction(schema: string, name: string): void {
    this.reads.opaque.add(`function ${schema}.${name}`);
  }

  table(key: string): TableModel {
    const table = this.model.tables.get(key);
    if (!table) throw untrackedTable(key);
    return table;
  }

  access(table: TableModel): SelectAccess {
    const access = selectAccess(table, this.session.role);
    if (!access) throw noSelectPermission(table.name, this.session.role);
    return access;
  }

  /** The value of a session variable as a bound parameter; a missing one is an error, as in Hasura. */
  sessionValue(name: string): Sql {
    const key = name.toLowerCase();
    const value = this.session.variables[key];
    if (value === undefined) throw missingSessionVariable(key);
    return this.planning ? sql`${sessionSlot(key)}` : sql`${value}`;
  }
}

/** `"x-hasura-user-id"`-style strings in permission expressions name session variables. */
export function isSessionVariable(value: unknown): value is string {
  return typeof value === "string" && value.toLowerCase().startsWith("x-hasura-");
}
