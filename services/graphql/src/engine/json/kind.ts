/** A JSON value's kind as Aeson names it in its messages ("expected Object, but encountered Array") and Kriti in its type errors. */
export function jsonKind(value: unknown): "Null" | "Array" | "Object" | "String" | "Number" | "Boolean" {
  if (value === null) return "Null";
  if (Array.isArray(value)) return "Array";
  switch (typeof value) {
    case "string":
      return "String";
    case "number":
      return "Number";
    case "boolean":
      return "Boolean";
    default:
      return "Object";
  }
}
