/**
 * GraphQL query text laid out as Hasura lays out what it sends to a remote schema (the printer of
 * hasura/graphql-parser-hs, src/Language/GraphQL/Draft/Printer.hs): all on one line, `{ a b }`
 * with a space after every field (so a leaf is `a ` and a selection `{ a  b  }`), arguments and
 * object fields `name: value` separated by a bare comma, strings as JSON strings. A remote's errors carry `locations` in
 * this text, and Hasura returns them to the client as they are, so the layout is part of the
 * answer.
 */
import {
  type ArgumentNode,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type InlineFragmentNode,
  Kind,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type TypeNode,
  type ValueNode,
  type VariableDefinitionNode,
} from "graphql";

function value(v: ValueNode): string {
  switch (v.kind) {
    case Kind.VARIABLE:
      return `$${v.name.value}`;
    case Kind.INT:
    case Kind.FLOAT:
      return v.value;
    case Kind.STRING:
      // JSON's escapes, as Hasura prints strings with Aeson. (It would print a block string only
      // for text of several lines without control characters, which a line break already is.)
      return JSON.stringify(v.value);
    case Kind.BOOLEAN:
      return v.value ? "true" : "false";
    case Kind.NULL:
      return "null";
    case Kind.ENUM:
      return v.value;
    case Kind.LIST:
      return `[${v.values.map(value).join(",")}]`;
    case Kind.OBJECT:
      return `{${v.fields.map((f) => `${f.name.value}: ${value(f.value)}`).join(",")}}`;
  }
}

function args(list: readonly ArgumentNode[] | undefined): string {
  return list && list.length > 0 ? `(${list.map((a) => `${a.name.value}: ${value(a.value)}`).join(",")})` : "";
}

function directives(list: readonly DirectiveNode[] | undefined): string {
  return (list ?? []).map((d) => `@${d.name.value}${args(d.arguments)}`).join(" ");
}

function type(t: TypeNode): string {
  if (t.kind === Kind.NAMED_TYPE) return t.name.value;
  if (t.kind === Kind.LIST_TYPE) return `[${type(t.type)}]`;
  return `${type(t.type)}!`;
}

function selectionSet(set: SelectionSetNode | undefined): string {
  if (!set || set.selections.length === 0) return "";
  return `{ ${set.selections.map(selection).join(" ")} }`;
}

function field(f: FieldNode): string {
  const alias = f.alias ? `${f.alias.value}: ` : "";
  return `${alias}${f.name.value}${args(f.arguments)}${directives(f.directives)} ${selectionSet(f.selectionSet)}`;
}

function inlineFragment(f: InlineFragmentNode): string {
  const on = f.typeCondition ? `on ${f.typeCondition.name.value}` : "";
  return `... ${on}${directives(f.directives)}${selectionSet(f.selectionSet)}`;
}

function selection(s: SelectionNode): string {
  if (s.kind === Kind.FIELD) return field(s);
  if (s.kind === Kind.INLINE_FRAGMENT) return inlineFragment(s);
  return `...${s.name.value}${directives(s.directives)}`;
}

function variableDefinition(d: VariableDefinitionNode): string {
  return `$${d.variable.name.value}: ${type(d.type)}${d.defaultValue ? ` = ${value(d.defaultValue)}` : ""}`;
}

/** An operation's text, its selections given as text (a remote join's many aliased copies of one field are printed apart). */
export function operationText(op: Omit<OperationDefinitionNode, "kind" | "selectionSet">, selections: readonly string[]): string {
  const vars =
    op.variableDefinitions && op.variableDefinitions.length > 0 ? `(${op.variableDefinitions.map(variableDefinition).join(",")})` : "";
  return `${op.operation} ${op.name?.value ?? ""}${vars}${directives(op.directives)} { ${selections.join(" ")} }`;
}

function operation(op: OperationDefinitionNode): string {
  return operationText(op, op.selectionSet.selections.map(selection));
}

export { args as argumentsText, directives as directivesText, selectionSet as selectionSetText };

function fragment(f: FragmentDefinitionNode): string {
  return `fragment ${f.name.value} on ${f.typeCondition.name.value}${directives(f.directives)}${selectionSet(f.selectionSet)}`;
}

/** The document's text, its definitions one per line. */
export function queryText(document: DocumentNode): string {
  return document.definitions
    .map((d) => (d.kind === Kind.OPERATION_DEFINITION ? operation(d) : d.kind === Kind.FRAGMENT_DEFINITION ? fragment(d) : ""))
    .join("\n");
}
