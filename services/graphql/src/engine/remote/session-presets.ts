/**
 * Session variable presets of a role's remote schema permission, read from the request's session
 * when the remote is called, as Hasura's resolveRemoteVariable reads them
 * (server/src-lib/Hasura/GraphQL/Execute/Remote.hs): the variable must be there (a hard preset);
 * its text is read as the argument's type (`Int`, `Float`, `Boolean`; an enum's value; the text
 * itself for `String`, `ID` and custom scalars) and sent as a non-null variable of that type.
 */
import { Kind, type VariableDefinitionNode } from "graphql";
import { presetSessionValueInvalid, presetSessionVariableMissing } from "../errors/index.js";
import { numberFromText } from "../json/number.js";
import type { SessionPreset } from "../plan/types.js";

const INT = /^\s*-?\d+\s*$/;
const FLOAT = /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/;
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

function coerced(preset: SessionPreset, text: string): unknown {
  if (preset.enumValues) {
    if (!NAME.test(text)) throw presetSessionValueInvalid(text, "is not a valid GraphQL name");
    if (!preset.enumValues.includes(text)) throw presetSessionValueInvalid(text, "is not one of the valid enum values");
    return text;
  }
  switch (preset.type) {
    case "Int":
      if (!INT.test(text)) throw presetSessionValueInvalid(text, "cannot be coerced into an Int value");
      return numberFromText(text.trim());
    case "Float":
      if (!FLOAT.test(text)) throw presetSessionValueInvalid(text, "cannot be coerced into a Float value");
      return numberFromText(text.trim());
    case "Boolean":
      if (text !== "true" && text !== "false") throw presetSessionValueInvalid(text, "cannot be coerced into a Boolean value");
      return text === "true";
    default:
      return text;
  }
}

/** The variables `presets` are sent as: their definitions and values from the session's variables (lower-case names). */
function sessionPresetVariables(
  presets: readonly SessionPreset[],
  session: Readonly<Record<string, string>>,
): { definitions: VariableDefinitionNode[]; values: Record<string, unknown> } {
  const definitions: VariableDefinitionNode[] = [];
  const values: Record<string, unknown> = {};
  for (const preset of presets) {
    const text = session[preset.variable];
    if (text === undefined) throw presetSessionVariableMissing(preset.variable);
    values[preset.name] = coerced(preset, text);
    definitions.push({
      kind: Kind.VARIABLE_DEFINITION,
      variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: preset.name } },
      type: { kind: Kind.NON_NULL_TYPE, type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: preset.type } } },
    });
  }
  return { definitions, values };
}

/** A planned remote call (or remote join) with the variables of its session presets, read from the session now. */
export function withSessionPresets<
  T extends { variables: VariableDefinitionNode[]; values: Record<string, unknown>; sessionPresets: SessionPreset[] },
>(call: T, sessionVariables: Readonly<Record<string, string>>): T {
  if (call.sessionPresets.length === 0) return call;
  const { definitions, values } = sessionPresetVariables(call.sessionPresets, sessionVariables);
  return { ...call, variables: [...call.variables, ...definitions], values: { ...call.values, ...values } };
}
