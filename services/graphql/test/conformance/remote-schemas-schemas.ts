/**
 * The schemas of hasura/graphql-engine server/tests-py graphql_server.py (graphene) that
 * test_schema_stitching.py uses, ported to graphql-js: the same types with graphene's names
 * (fields and arguments camel-cased as graphene does: `primary_function` is `primaryFunction`,
 * `person_` stays `person_`), the same resolvers and data. Types are listed as graphene lists them
 * (the query type first), so the introspection answers' `types` come in the same order.
 */
import {
  buildSchema,
  GraphQLError,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  type GraphQLScalarType,
  type GraphQLSchema,
  type GraphQLUnionType,
} from "graphql";

type Resolvers = Record<string, Record<string, (source: unknown, args: Record<string, unknown>, context: unknown) => unknown>>;

/** A schema from SDL with field resolvers and scalar/abstract hooks attached. */
function schema(sdl: string, resolvers: Resolvers = {}): GraphQLSchema {
  const built = buildSchema(sdl);
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = built.getType(typeName) as GraphQLObjectType;
    for (const [field, resolve] of Object.entries(fields)) (type.getFields()[field] as { resolve?: unknown }).resolve = resolve;
  }
  return built;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** graphene's `hello_schema`: Hello is both the query and the subscription type. */
export function helloSchema(): GraphQLSchema {
  return schema(
    `type Hello { hello(arg: String = "world"): String delayedHello(arg: String = "world"): String }
     schema { query: Hello subscription: Hello }`,
    {
      Hello: {
        hello: (_, { arg }) => `Hello ${String(arg)}`,
        delayedHello: async (_, { arg }) => {
          await sleep(10_000);
          return `Hello ${String(arg)}`;
        },
      },
    },
  );
}

/** `sample_auth_schema`: the same hello, answered with a Set-Cookie. */
export function sampleAuthSchema(): GraphQLSchema {
  return schema(`type SampleAuth { hello(arg: String = "world"): String } schema { query: SampleAuth subscription: SampleAuth }`, {
    SampleAuth: { hello: (_, { arg }) => `Hello ${String(arg)}` },
  });
}

interface User {
  id: number;
  username: string;
}

/** `user_schema`, with its module-level list of users (mutations add to it). */
export function userSchema(): GraphQLSchema {
  const users: User[] = [
    { id: 1, username: "jane" },
    { id: 2, username: "john" },
    { id: 3, username: "joe" },
  ];
  return schema(
    `type User { id: Int username: String generateError: String }
     input UserDetailsInput { id: Int! username: String! }
     type UserQuery { user(id: Int!, userInfo: [UserDetailsInput]): User allUsers: [User] }
     type CreateUser { ok: Boolean user: User }
     type CreateUserInputObject { ok: Boolean user: User }
     type UserMutation { createUser(id: Int!, username: String!): CreateUser createUserInputObj(userData: UserDetailsInput!): CreateUserInputObject }
     schema { query: UserQuery mutation: UserMutation }`,
    {
      UserQuery: { user: (_, { id }) => users.find((u) => u.id === id) ?? null, allUsers: () => users },
      User: { generateError: () => new GraphQLError('Cannot query field "generateError" on type "User".') },
      UserMutation: {
        createUser: (_, { id, username }) => {
          const user = { id: id as number, username: username as string };
          users.push(user);
          return { ok: true, user };
        },
        createUserInputObj: (_, { userData }) => {
          const user = userData as User;
          users.push(user);
          return { ok: true, user };
        },
      },
    },
  );
}

export function countrySchema(): GraphQLSchema {
  return schema("type Country { name: String } type CountryQuery { country: Country } schema { query: CountryQuery }", {
    CountryQuery: { country: () => ({ name: "India" }) },
  });
}

/** `person_schema`: a `person` type and a `timestamptz` scalar, the same as a tracked table's. */
export function personSchema(): GraphQLSchema {
  const built = schema(
    "scalar timestamptz type person { id: Int! name: String created: timestamptz } type PersonQuery { person_: person } schema { query: PersonQuery }",
    { PersonQuery: { person_: () => ({ id: 42, name: "Arthur Dent", created: "2018-12-20" }) } },
  );
  const scalar = built.getType("timestamptz") as GraphQLScalarType;
  scalar.serialize = () => "2018-12-20";
  scalar.parseValue = () => "2018-12-20";
  scalar.parseLiteral = () => "2018-12-20";
  return built;
}

/** Human before Droid, as graphene's `types=[Human, Droid]` lists them (the interface's possible types in that order). */
const CHARACTERS_SDL = `
  interface Character { id: ID! name: String! }
  type Human implements Character { id: ID! name: String! homePlanet: String droid: Droid }
  type Droid implements Character { id: ID! name: String! primaryFunction: String }
`;

interface Character {
  __typename: "Droid" | "Human";
  id: number;
  name: string;
  primaryFunction?: string;
  homePlanet?: string;
  droid?: Character;
}

const r2: Character = { __typename: "Droid", id: 1, name: "R2-D2", primaryFunction: "Astromech" };
const characters = new Map<number, Character>([
  [4, r2],
  [5, { __typename: "Human", id: 2, name: "Luke Skywalker", homePlanet: "Tatooine", droid: r2 }],
]);
const searchResults = new Map<number, Character>([
  [1, { __typename: "Droid", id: 6, name: "R2-D2", primaryFunction: "Astromech" }],
  [2, { __typename: "Human", id: 7, name: "Luke Skywalker", homePlanet: "Tatooine", droid: r2 }],
]);

const byTypename = (value: unknown) => (value as Character).__typename;

/** `character_interface_schema`: Human and Droid implement Character (listed after the query type, Human first). */
export function characterSchema(): GraphQLSchema {
  const built = schema(
    `type CharacterIFaceQuery { hero(episode: Int!): Character heroes: [Character] heroByArgs(arguments: CharacterInputArgs!): Character }
     input CharacterInputArgs { episode: Int! }
     ${CHARACTERS_SDL}
     schema { query: CharacterIFaceQuery }`,
    {
      CharacterIFaceQuery: {
        hero: (_, { episode }) => characters.get(episode as number) ?? null,
        heroes: () => [...characters.values()],
        heroByArgs: (_, { arguments: args }) => characters.get((args as { episode: number }).episode) ?? null,
      },
    },
  );
  (built.getType("Character") as GraphQLInterfaceType).resolveType = byTypename;
  return built;
}

/** `union_schema`: the union is the query's only field type, so it comes right after the query type. */
export function unionSchema(): GraphQLSchema {
  const built = schema(
    `type UnionQuery { search(episode: Int!): CharacterSearchResult }
     union CharacterSearchResult = Human | Droid
     ${CHARACTERS_SDL}
     schema { query: UnionQuery }`,
    { UnionQuery: { search: (_, { episode }) => searchResults.get(episode as number) ?? null } },
  );
  (built.getType("Character") as GraphQLInterfaceType).resolveType = byTypename;
  (built.getType("CharacterSearchResult") as GraphQLUnionType).resolveType = byTypename;
  return built;
}

/** `echo_schema`: arguments with default values of every kind. */
export function echoSchema(): GraphQLSchema {
  return schema(
    `type SizeObj { width: Int height: Float shape: String hasTag: Boolean }
     enum Color { RED GREEN BLUE }
     input SizeInput { width: Int = 100 height: Float = 100.1 shape: String = "cube" hasTag: Boolean = false }
     type Echo { intFld: Int listFld: [String] objFld: SizeObj enumFld: Color }
     type EchoQuery {
       echo(
         intInput: Int = 1234
         listInput: [String] = ["hi", "there"]
         objInput: SizeInput = {width: 100, height: 100.1, shape: "cube", hasTag: false}
         enumInput: Color = RED
         rIntInput: Int! = 1234
         rListInput: [String!] = ["general", "Kenobi"]
         rObjInput: SizeInput! = {width: 100, height: 100.1, shape: "cube", hasTag: false}
         rEnumInput: Color! = RED
       ): Echo
     }
     schema { query: EchoQuery }`,
    {
      EchoQuery: {
        echo: (_, args) => ({ intFld: args.intInput, listFld: args.listInput, objFld: args.objInput, enumFld: args.enumInput }),
      },
    },
  );
}

export interface HeaderRequest {
  headers: Record<string, string | string[] | undefined>;
}

/** What `header_test_expected_headers(None)` checks (x-forwarded-host ignored: no engine URLs given). */
const EXPECTED_HEADERS: Record<string, string[] | ((values: string[]) => boolean)> = {
  authorization: ["Bearer abcdef"],
  "content-type": ["application/json"],
  "x-hasura-role": ["user"],
  "x-hasura-test": ["abcd"],
  "x-hasura-user-id": ["abcd1234"],
  "x-forwarded-user-agent": (values) => values.every((v) => v.startsWith("python-requests/")),
};

/** `header_test_schema`: `wassup` fails unless the request carries exactly the headers expected. */
export function headerSchema(): GraphQLSchema {
  return schema('type HeaderTest { wassup(arg: String = "world"): String } schema { query: HeaderTest }', {
    HeaderTest: {
      wassup: (_, { arg }, context) => {
        const headers = (context as HeaderRequest).headers;
        for (const [name, expected] of Object.entries(EXPECTED_HEADERS)) {
          const raw = headers[name];
          const values = raw === undefined ? [] : Array.isArray(raw) ? raw : raw.split(", ");
          const ok = typeof expected === "function" ? expected(values) : JSON.stringify(expected) === JSON.stringify(values);
          if (!ok) throw new Error(`Header ${name} doesn't match: ${JSON.stringify(expected)} != ${JSON.stringify(values)}`);
        }
        return `Hello ${String(arg)}`;
      },
    },
  });
}

export function messagesSchema(): GraphQLSchema {
  const messages = [
    { id: 1, msg: "You win!" },
    { id: 2, msg: "You lose!" },
  ];
  return schema(
    "type Message { id: Int msg: String } type MessagesQuery { message(id: Int!): Message messages: [Message] } schema { query: MessagesQuery }",
    {
      MessagesQuery: { message: (_, { id }) => messages.find((m) => m.id === id) ?? null, messages: () => messages },
    },
  );
}

/** `json_schema`: a scalar answered as the object itself, keys with quotes and backslashes. */
export function jsonSchema(): GraphQLSchema {
  const built = schema("scalar Json type JsonQuery { jsonTest: Json } schema { query: JsonQuery }", {
    JsonQuery: { jsonTest: () => ({ "foo\\": "bar", '"foo"': "bar" }) },
  });
  (built.getType("Json") as GraphQLScalarType).serialize = (value: unknown) => value;
  return built;
}
