/**
 * pg-boss over our `Database` (https://github.com/timgit/pg-boss/blob/10.4.2/docs/api/constructor.md:
 * the `db` option takes any object with `executeSql(text, values)`), so the queue runs on the
 * engine's own database whichever it is: a pg pool, or the in-process PGlite that has no pool for
 * pg-boss to open.
 */
import type { Database } from "@platform/core";

export interface BossDatabase {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number }>;
  /** Resolves once no statement pg-boss started is still running (before the database is closed). */
  drain(): Promise<void>;
}

/**
 * pg-boss sends its schema creation, migrations and maintenance as one parameterless script wrapped
 * in `BEGIN; ... COMMIT;` (plans.js `locked()`); pg-boss reads no rows from them. PGlite's extended
 * protocol takes one statement per query, so the script's body runs through `exec`; and it runs in
 * a transaction of ours rather than its own BEGIN, so a failing script is rolled back on its own
 * connection instead of leaving an aborted transaction on a pooled one.
 */
const SCRIPT = /^\s*BEGIN\s*;([\s\S]*);\s*COMMIT\s*;\s*$/i;

export function bossDatabase(db: Database): BossDatabase {
  const running = new Set<Promise<unknown>>();
  const run = async (text: string, values: unknown[]) => {
    const script = values.length === 0 ? SCRIPT.exec(text) : null;
    if (script) {
      await db.transaction((tx) => tx.exec(script[1] ?? ""));
      return { rows: [], rowCount: 0 };
    }
    return db.query({ text, values });
  };
  return {
    executeSql(text, values = []) {
      const statement = run(text, values);
      running.add(statement);
      const forget = () => running.delete(statement);
      statement.then(forget, forget);
      return statement;
    },
    async drain() {
      // pg-boss does not await every statement it starts (it completes jobs without waiting), so
      // wait for what is left, including anything started while waiting.
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
