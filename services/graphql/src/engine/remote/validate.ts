/**
 * The checks Hasura makes while building a remote schema's parsers (buildRemoteParser in
 * server/src-lib/Hasura/GraphQL/Schema/Remote.hs): from each root type, depth first in field
 * order, every type reached must exist and be of the right kind (input or output), objects must
 * implement their interfaces' fields and arguments, interfaces must have fields, unions members.
 * The first problem is the remote schema's error, worded as Hasura words it.
 */
import type { TypeRef } from "../model/types.js";
import type { RemoteFieldDef, RemoteInputValue, RemoteIntrospection, RemoteTypeDef } from "./types.js";

/** A remote schema Hasura would refuse; the message is Hasura's. */
export class RemoteSchemaProblem extends Error {
  constructor(
    message: string,
    /** Hasura's code: `remote-schema-error`, or `unexpected` for a root that is not an object. */
    readonly code: "remote-schema-error" | "unexpected" = "remote-schema-error",
  ) {
    super(message);
  }
}

/** A type as GraphQL writes it (`[String!]!`), Hasura's showGT. */
export function typeText(type: TypeRef): string {
  const inner = type.kind === "named" ? type.name : `[${typeText(type.of)}]`;
  return type.nullable ? inner : `${inner}!`;
}

const baseName = (type: TypeRef): string => (type.kind === "named" ? type.name : baseName(type.of));
const sameType = (a: TypeRef, b: TypeRef): boolean => typeText(a) === typeText(b);
const sq = (s: string) => `'${s}'`;
const dq = (s: string) => `"${s}"`;

type ObjectDef = Extract<RemoteTypeDef, { kind: "OBJECT" }>;
type InterfaceDef = Extract<RemoteTypeDef, { kind: "INTERFACE" }>;

class Checker {
  private readonly seen = new Set<string>();

  constructor(private readonly schema: RemoteIntrospection) {}

  private lookup(name: string): RemoteTypeDef {
    const def = this.schema.types.get(name);
    if (!def) throw new RemoteSchemaProblem(`Could not find type with name ${dq(name)}`);
    return def;
  }

  root(name: string): void {
    const def = this.schema.types.get(name);
    if (def?.kind !== "OBJECT") throw new RemoteSchemaProblem(`${dq(name)} has to be an object type`, "unexpected");
    for (const f of def.fields) this.field(f);
  }

  private field(f: RemoteFieldDef): void {
    for (const arg of f.args) this.input(arg);
    const def = this.lookup(baseName(f.type));
    if (def.kind === "INPUT_OBJECT") throw new RemoteSchemaProblem("expected output type, but got input type");
    this.output(def);
  }

  private input(value: RemoteInputValue): void {
    const def = this.lookup(baseName(value.type));
    if (def.kind === "OBJECT" || def.kind === "INTERFACE" || def.kind === "UNION")
      throw new RemoteSchemaProblem("expected input type, but got output type");
    if (def.kind !== "INPUT_OBJECT" || this.seen.has(def.name)) return;
    this.seen.add(def.name);
    for (const f of def.fields) this.input(f);
  }

  private output(def: RemoteTypeDef): void {
    if (this.seen.has(def.name)) return;
    this.seen.add(def.name);
    if (def.kind === "OBJECT") this.object(def);
    else if (def.kind === "INTERFACE") this.interface(def);
    else if (def.kind === "UNION") {
      for (const member of def.possibleTypes) this.output(this.member(member, "Union", def.name));
      if (def.possibleTypes.length === 0)
        throw new RemoteSchemaProblem(`List of member types cannot be empty for union type ${sq(def.name)}`);
    }
  }

  /** A member of a union or an interface's possible type: an object. */
  private member(name: string, of: "Union" | "Interface", owner: string): ObjectDef {
    const def = this.schema.types.get(name);
    if (def?.kind === "OBJECT") return def;
    if (def?.kind === "INTERFACE")
      throw new RemoteSchemaProblem(`${of} type ${sq(owner)} can only include object types. It cannot include ${sq(name)}`);
    throw new RemoteSchemaProblem(`Could not find type ${sq(name)}, which is defined as a member type of ${of} ${sq(owner)}`);
  }

  private interface(def: InterfaceDef): void {
    for (const f of def.fields) this.field(f);
    for (const member of def.possibleTypes) this.output(this.member(member, "Interface", def.name));
    if (def.fields.length === 0) throw new RemoteSchemaProblem(`List of fields cannot be empty for interface ${sq(def.name)}`);
  }

  private object(def: ObjectDef): void {
    for (const f of def.fields) this.field(f);
    const interfaces = def.interfaces.map((name) => {
      const found = this.schema.types.get(name);
      if (found?.kind !== "INTERFACE")
        throw new RemoteSchemaProblem(`Could not find interface ${sq(name)} implemented by Object type ${sq(def.name)}`);
      return found;
    });
    for (const i of interfaces) this.output(i);
    for (const i of interfaces) for (const f of i.fields) this.implements(def, i, f);
  }

  private implements(object: ObjectDef, iface: InterfaceDef, ifaceField: RemoteFieldDef): void {
    const f = object.fields.find((o) => o.name === ifaceField.name);
    const where = `${sq(iface.name)}.${dq(ifaceField.name)}`;
    if (!f) throw new RemoteSchemaProblem(`Interface field ${where} expected, but ${sq(object.name)} does not provide it`);
    if (!this.subType(f.type, ifaceField.type))
      throw new RemoteSchemaProblem(
        `The type of Object field ${sq(object.name)}.${dq(f.name)} (${typeText(f.type)}) is not the same type/sub type of Interface field ${where} (${typeText(ifaceField.type)})`,
      );
    for (const arg of ifaceField.args) {
      const own = f.args.find((a) => a.name === arg.name);
      if (!own)
        throw new RemoteSchemaProblem(
          `Interface field argument ${where}(${dq(arg.name)}:) required, but Object field ${sq(object.name)}.${dq(f.name)} does not provide it`,
        );
      if (!sameType(own.type, arg.type))
        throw new RemoteSchemaProblem(
          `Interface field argument ${where}(${dq(arg.name)}:) expects type ${typeText(arg.type)}, but ${sq(object.name)}.${dq(f.name)}(${dq(arg.name)}:) has type ${typeText(own.type)}`,
        );
    }
    for (const arg of f.args) {
      if (ifaceField.args.some((a) => a.name === arg.name) || arg.type.nullable) continue;
      throw new RemoteSchemaProblem(
        `Object field argument ${sq(object.name)}.${dq(f.name)}(${dq(arg.name)}:) is of required type ${typeText(arg.type)}, but is not provided by Interface field ${where}`,
      );
    }
  }

  /** Hasura's validateSubType: lists of sub types, a stricter non-null, an object of an interface or union. */
  private subType(x: TypeRef, y: TypeRef): boolean {
    if (x.kind === "list" && y.kind === "list") return this.subType(x.of, y.of);
    if (x.kind !== "named" || y.kind !== "named") return false;
    if (!x.nullable && y.nullable) return this.subType({ ...x, nullable: true }, y);
    const a = this.schema.types.get(x.name);
    const b = this.schema.types.get(y.name);
    if (!a || !b || x.nullable !== y.nullable) return false;
    if (a === b) return true;
    if (a.kind === "OBJECT" && b.kind === "INTERFACE") return b.possibleTypes.includes(a.name);
    return a.kind === "OBJECT" && b.kind === "UNION";
  }
}

/** Throws the first problem Hasura would find building the remote schema's query, mutation and subscription fields. */
export function checkRemoteSchema(schema: RemoteIntrospection): void {
  const checker = new Checker(schema);
  checker.root(schema.queryRoot);
  if (schema.mutationRoot) checker.root(schema.mutationRoot);
  if (schema.subscriptionRoot) checker.root(schema.subscriptionRoot);
}
