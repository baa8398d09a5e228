/**
 * Errors of Kriti templates, with the codes and span Kriti serialises them with
 * (https://github.com/hasura/kriti-lang, src/Kriti/Error.hs and src/Kriti/Eval.hs): Hasura puts
 * them in its transform errors as `error_code`, `message` and `source_position`.
 */

/** Lines and columns count from 0, as Kriti's do. */
export interface Position {
  line: number;
  col: number;
}

export interface Span {
  start: Position;
  end: Position;
}

export type KritiErrorCode =
  | "ParseErrorCode"
  | "TypeErrorCode"
  | "AttributeErrorCode"
  | "NameErrorCode"
  | "IndexErrorCode"
  | "FunctionErrorCode"
  /** Ours: the template's evaluation passed its step or output budget. */
  | "LimitErrorCode";

/** The names Kriti serialises its codes with (`Pretty ErrorCode`). */
const PRETTY: Record<KritiErrorCode, string> = {
  ParseErrorCode: "Parse Error",
  TypeErrorCode: "Type Error",
  AttributeErrorCode: "Attribute Error",
  NameErrorCode: "Name Error",
  IndexErrorCode: "Index Error",
  FunctionErrorCode: "Function Error",
  LimitErrorCode: "Limit Error",
};

export class KritiError extends Error {
  constructor(
    readonly code: KritiErrorCode,
    message: string,
    readonly span: Span,
  ) {
    super(message);
    this.name = "KritiError";
  }

  /** Kriti's serialised form, as Hasura reports it. */
  toJSON(): { error_code: string; message: string; source_position: Record<string, number> } {
    return {
      error_code: PRETTY[this.code],
      message: this.message,
      source_position: {
        start_line: this.span.start.line,
        start_column: this.span.start.col,
        end_line: this.span.end.line,
        end_column: this.span.end.col,
      },
    };
  }
}
