/**
 * `{{VAR}}` templates in the URLs of action handlers and remote schemas, read from the
 * environment as Hasura reads them (https://hasura.io/docs/latest/actions/action-handlers/#using-environment-variables).
 */
const TEMPLATE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The text with every `{{VAR}}` replaced by its value; `missing` makes the error for an unset one. */
export function resolveTemplate(text: string, env: Record<string, string | undefined>, missing: (name: string) => Error): string {
  return text.replace(TEMPLATE, (_, name: string) => {
    const value = env[name];
    if (value === undefined) throw missing(name);
    return value;
  });
}
