/**
 * The floor of a start: a fresh process that imports PGlite and opens the data directory given
 * as argument (creating it when absent: initdb), then exits. Printed: milliseconds from process
 * start to the database being ready.
 */
import { PGlite } from "@electric-sql/pglite";

const dir = process.argv[2];
if (!dir) throw new Error("usage: pglite-floor.ts <data dir>");
const db = new PGlite(dir);
await db.waitReady;
console.log(JSON.stringify({ ms: performance.now() }));
await db.close();
