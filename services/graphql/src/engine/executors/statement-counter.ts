/**
 * The engine's own count of the statements it sends to the database for GraphQL requests (the
 * runtime gives every Engine its database through one counter): how a test proves that a request
 * refused by a limit sent no statement at all.
 */
import type { Database, Queryable } from "@platform/core";

export class StatementCounter {
  /** Statements sent so far (a transaction's statements each; its BEGIN and COMMIT not). */
  sent = 0;

  private counted(queryable: Queryable): Queryable {
    return {
      query: (statement, options) => {
        this.sent += 1;
        return queryable.query(statement, options);
      },
      exec: (script) => {
        this.sent += 1;
        return queryable.exec(script);
      },
    };
  }

  /** `db` with every statement run through it counted. */
  wrap(db: Database): Database {
    return {
      ...db,
      ...this.counted(db),
      transaction: (work, options) => db.transaction((tx) => work(this.counted(tx)), options),
    };
  }
}
