import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnumValues, validateEnumTable } from "../src/engine/catalog/enum-table.js";
import { introspect } from "../src/engine/catalog/introspect.js";
import { type PgCatalog, type PgTable, tableKey } from "../src/engine/catalog/types.js";
import { HasuraError } from "../src/engine/errors/index.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

const schema = `
  CREATE SCHEMA app;
  CREATE TABLE "AccountType" (type text PRIMARY KEY);
  INSERT INTO "AccountType" VALUES ('TWITTER'), ('DISCORD'), ('GITHUB');
  CREATE TABLE app.colour (value text PRIMARY KEY, comment text);
  INSERT INTO app.colour VALUES ('red', 'Warm'), ('blue', NULL);
  CREATE DOMAIN label AS text;
  CREATE TABLE domain_key (value label PRIMARY KEY);
  INSERT INTO domain_key VALUES ('A');
  CREATE TABLE no_key (value text);
  CREATE TABLE two_keys (a text, b text, PRIMARY KEY (b, a));
  CREATE TABLE int_key (id int PRIMARY KEY, label varchar);
  CREATE TABLE wide_enum (value text PRIMARY KEY, description text, extra text, more int);
  CREATE TABLE empty_enum (value text PRIMARY KEY);
  CREATE TABLE bad_names (value text PRIMARY KEY);
  INSERT INTO bad_names VALUES ('ok'), ('true'), ('1st'), ('has space');
  CREATE TABLE one_bad (value text PRIMARY KEY);
  INSERT INTO one_bad VALUES ('with-dash'), ('fine');
  CREATE TABLE two_bad (value text PRIMARY KEY);
  INSERT INTO two_bad VALUES ('null'), ('9');
`;

describe.each(testBackends)("enum tables on %s", (backend) => {
  let t: TestDatabase;
  let catalog: PgCatalog;
  const table = (name: string, schemaName = "public"): PgTable => catalog.tables.get(tableKey(schemaName, name)) as PgTable;
  const failure = async (name: string): Promise<HasuraError> => {
    const error = await loadEnumValues(t.db, table(name)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HasuraError);
    expect((error as HasuraError).code).toBe("constraint-violation");
    return error as HasuraError;
  };

  beforeAll(async () => {
    t = await openTestDatabase(backend);
    await t.db.exec(schema);
    catalog = await introspect(t.db);
  });
  afterAll(() => t?.dispose());

  it("loads the key values, ordered, without descriptions when there is no second column", async () => {
    expect(validateEnumTable(table("AccountType"))).toBeNull();
    expect(await loadEnumValues(t.db, table("AccountType"))).toEqual([
      { value: "DISCORD", description: null },
      { value: "GITHUB", description: null },
      { value: "TWITTER", description: null },
    ]);
  });

  it("uses the one other text column as the description", async () => {
    expect(await loadEnumValues(t.db, table("colour", "app"))).toEqual([
      { value: "blue", description: null },
      { value: "red", description: "Warm" },
    ]);
  });

  it("accepts a key whose domain is text, as Hasura does", async () => {
    expect(validateEnumTable(table("domain_key"))).toBeNull();
    expect(await loadEnumValues(t.db, table("domain_key"))).toEqual([{ value: "A", description: null }]);
  });

  it("rejects tables of the wrong shape with Hasura's messages", async () => {
    expect(validateEnumTable(table("no_key"))).toBe(
      'the table "no_key" cannot be used as an enum because the table must have a primary key',
    );
    expect(validateEnumTable(table("two_keys"))).toBe(
      'the table "two_keys" cannot be used as an enum for the following reasons:\n' +
        "  • the table’s primary key must not span multiple columns (a, b)\n" +
        "  • the table must have exactly one primary key and optionally one comment column, not 2 columns (a, b)\n",
    );
    expect(validateEnumTable(table("int_key"))).toBe(
      'the table "int_key" cannot be used as an enum for the following reasons:\n' +
        '  • the table’s primary key ("id") must have type "text", not type "integer"\n' +
        "  • the table must have exactly one primary key and optionally one comment column, not 2 columns (id, label)\n",
    );
    expect(validateEnumTable(table("wide_enum"))).toBe(
      'the table "wide_enum" cannot be used as an enum because the table must have exactly one primary key and optionally one comment column, not 3 columns (description, extra, more)',
    );
    expect((await failure("no_key")).message).toBe(validateEnumTable(table("no_key")));
  });

  it("rejects empty tables and values that are not GraphQL names", async () => {
    expect(validateEnumTable(table("empty_enum"))).toBeNull();
    expect((await failure("empty_enum")).message).toBe(
      'the table "empty_enum" cannot be used as an enum because the table must have at least one row',
    );
    expect((await failure("one_bad")).message).toBe(
      'the table "one_bad" cannot be used as an enum because the value "with-dash" is not a valid GraphQL enum value name',
    );
    expect((await failure("two_bad")).message).toBe(
      'the table "two_bad" cannot be used as an enum because the values "9" and "null" are not valid GraphQL enum value names',
    );
    expect((await failure("bad_names")).message).toBe(
      'the table "bad_names" cannot be used as an enum because the values 1st, has space, and "true" are not valid GraphQL enum value names',
    );
  });

  it("reports shape and content problems together", async () => {
    await t.db.exec("CREATE TABLE app.mixed (value text PRIMARY KEY, n int); INSERT INTO app.mixed VALUES ('x y', 1);");
    const mixed = (await introspect(t.db, [{ schema: "app", name: "mixed" }])).tables.get("app.mixed") as PgTable;
    const error = (await loadEnumValues(t.db, mixed).catch((e: unknown) => e)) as HasuraError;
    expect(error.message).toBe(
      'the table "app.mixed" cannot be used as an enum for the following reasons:\n' +
        '  • the table’s comment column ("n") must have type "text", not type "integer"\n' +
        '  • the value "x y" is not a valid GraphQL enum value name\n',
    );
  });
});
