/**
 * The GraphQL documents written as template literals in a TypeScript code base: `gql`/`graphql`
 * tagged templates and templates marked with a `/* GraphQL *\/` comment (the marker
 * graphql-codegen's document finder reads, which MetaGame's web client uses). A `${X}` inside one
 * is resolved to the template X names, through the file's imports, so a fragment defined in
 * another file or package is found as the bundler would find it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export interface Template {
  file: string;
  /** The const it is assigned to, if any. */
  name: string | undefined;
  /** The text with every `${X}` replaced by X's (resolved) text. */
  text: string;
}

interface RawTemplate {
  file: string;
  name: string | undefined;
  parts: string[];
  /** One identifier per substitution, between `parts`. */
  refs: string[];
}

interface ParsedFile {
  templates: RawTemplate[];
  /** Imported binding -> [module specifier, exported name]. */
  imports: Map<string, [string, string]>;
  /** `export * from` specifiers. */
  reExports: string[];
}

const TAGS = new Set(["gql", "graphql"]);
const MARKER = /\/\*\s*GraphQL\s*\*\//;
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".next", "out", "autogen"]);

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (SKIPPED_DIRS.has(entry) || entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(entry) && !entry.endsWith(".d.ts")) out.push(path);
  }
  return out.sort();
}

function isGraphqlTemplate(node: ts.Node, text: string): node is ts.TemplateLiteral | ts.TaggedTemplateExpression {
  if (ts.isTaggedTemplateExpression(node)) return TAGS.has(node.tag.getText());
  if (!ts.isNoSubstitutionTemplateLiteral(node) && !ts.isTemplateExpression(node)) return false;
  if (ts.isTaggedTemplateExpression(node.parent)) return false;
  // `= /* GraphQL */ \`` puts the marker on the line of the previous token: TypeScript calls that a trailing comment.
  const comments = [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.pos) ?? [])];
  return comments.some((c) => MARKER.test(text.slice(c.pos, c.end)));
}

function rawOf(node: ts.TemplateLiteral, file: string, name: string | undefined): RawTemplate {
  if (ts.isNoSubstitutionTemplateLiteral(node)) return { file, name, parts: [node.text], refs: [] };
  const parts = [node.head.text];
  const refs: string[] = [];
  for (const span of node.templateSpans) {
    if (!ts.isIdentifier(span.expression))
      throw new Error(`${file}: a substitution in a GraphQL template is not a name: \${${span.expression.getText()}}`);
    refs.push(span.expression.text);
    parts.push(span.literal.text);
  }
  return { file, name, parts, refs };
}

function parseFile(file: string): ParsedFile {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const parsed: ParsedFile = { templates: [], imports: new Map(), reExports: [] };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const bindings = node.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const el of bindings.elements)
          parsed.imports.set(el.name.text, [node.moduleSpecifier.text, (el.propertyName ?? el.name).text]);
    }
    if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && !node.exportClause)
      parsed.reExports.push(node.moduleSpecifier.text);
    if (isGraphqlTemplate(node, text)) {
      const literal = ts.isTaggedTemplateExpression(node) ? node.template : node;
      const holder = node.parent;
      const name = holder && ts.isVariableDeclaration(holder) && ts.isIdentifier(holder.name) ? holder.name.text : undefined;
      parsed.templates.push(rawOf(literal, file, name));
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return parsed;
}

/** Reads templates across a repository's packages and resolves their substitutions on demand. */
export class TemplateIndex {
  private readonly files = new Map<string, ParsedFile>();
  /** Package name (`@scope/name`) -> its folder. */
  private readonly packages = new Map<string, string>();

  constructor(
    private readonly repo: string,
    packagesDir = join(repo, "packages"),
  ) {
    for (const entry of existsSync(packagesDir) ? readdirSync(packagesDir) : []) {
      const manifest = join(packagesDir, entry, "package.json");
      if (!existsSync(manifest)) continue;
      const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name;
      if (name) this.packages.set(name, join(packagesDir, entry));
    }
  }

  private parsed(file: string): ParsedFile {
    let parsed = this.files.get(file);
    if (!parsed) {
      parsed = parseFile(file);
      this.files.set(file, parsed);
    }
    return parsed;
  }

  /** The folder holding `file`'s package.json (tsconfig `baseUrl: "."` resolves bare paths there). */
  private packageRoot(file: string): string {
    let dir = dirname(file);
    while (dir !== this.repo && dir !== dirname(dir)) {
      if (existsSync(join(dir, "package.json"))) return dir;
      dir = dirname(dir);
    }
    return this.repo;
  }

  private moduleFile(from: string, specifier: string): string | undefined {
    const bases: string[] = [];
    if (specifier.startsWith(".")) bases.push(resolve(dirname(from), specifier));
    else {
      const pkg = [...this.packages].find(([name]) => specifier === name || specifier.startsWith(`${name}/`));
      if (pkg) bases.push(join(pkg[1], "src", specifier.slice(pkg[0].length)), join(pkg[1], specifier.slice(pkg[0].length)));
      bases.push(join(this.packageRoot(from), specifier));
    }
    for (const base of bases)
      for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")])
        if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    return undefined;
  }

  /** The template `name` names in `file`: its own, an import's, or one re-exported. */
  private lookup(file: string, name: string, seen = new Set<string>()): RawTemplate | undefined {
    const key = `${file}#${name}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    const parsed = this.parsed(file);
    const own = parsed.templates.find((t) => t.name === name);
    if (own) return own;
    const imported = parsed.imports.get(name);
    if (imported) {
      const target = this.moduleFile(file, imported[0]);
      return target ? this.lookup(target, imported[1], seen) : undefined;
    }
    for (const spec of parsed.reExports) {
      const target = this.moduleFile(file, spec);
      const found = target ? this.lookup(target, name, seen) : undefined;
      if (found) return found;
    }
    return undefined;
  }

  private expand(raw: RawTemplate, chain: string[]): string {
    let out = raw.parts[0] ?? "";
    raw.refs.forEach((ref, i) => {
      const target = this.lookup(raw.file, ref);
      if (!target) throw new Error(`${relative(this.repo, raw.file)}: \${${ref}} names no GraphQL template reachable through its imports`);
      const id = `${target.file}#${target.name}`;
      if (chain.includes(id)) throw new Error(`${relative(this.repo, raw.file)}: \${${ref}} includes itself`);
      out += this.expand(target, [...chain, id]) + (raw.parts[i + 1] ?? "");
    });
    return out;
  }

  /** Every GraphQL template of the files under `dir`, substitutions resolved. */
  templatesUnder(dir: string): Template[] {
    return sourceFiles(dir).flatMap((file) =>
      this.parsed(file).templates.map((raw) => ({ file, name: raw.name, text: this.expand(raw, [`${file}#${raw.name}`]) })),
    );
  }
}
