/** One statement on a PostgreSQL server over a connection of its own (CREATE / DROP DATABASE, which no transaction may hold). */
import pg from "pg";

export async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
