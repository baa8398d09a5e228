/** The action bench's throw-away database: created empty for each run, dropped after it. */
import { ident, openDatabase, sql } from "@platform/core";
import { databaseUrl } from "./dataset.js";

async function onServer(serverUrl: string, work: (run: (text: ReturnType<typeof sql>) => Promise<unknown>) => Promise<void>) {
  const admin = await openDatabase({ url: databaseUrl(serverUrl, "postgres"), maxConnections: 1 });
  try {
    await work((statement) => admin.query(statement));
  } finally {
    await admin.close();
  }
}

/** Drops `name` (closing whatever still uses it) and creates it again; returns its URL. */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  await onServer(serverUrl, async (run) => {
    await run(sql`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    await run(sql`CREATE DATABASE ${ident(name)}`);
  });
  return databaseUrl(serverUrl, name);
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, (run) => run(sql`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`).then(() => undefined));
}
