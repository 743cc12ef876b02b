// Reads every import of src/ with the TypeScript compiler's own parser (TypeScript 7's API: it asks the compiler
// process for each file's syntax tree), so `import type`, `import { type X }`, re-exports, `import()` and
// `typeof import()` are told apart exactly as the compiler sees them, not by a regular expression.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { API } from 'typescript/unstable/sync';
import { SyntaxKind, type Node, type SourceFile } from 'typescript/unstable/ast';

export interface ImportEdge {
  /** Paths relative to the repository root, with forward slashes: `src/channels/form.ts`. */
  from: string;
  to: string;
  /** True when nothing of it survives compilation (`import type`, every name `type`, `typeof import()`). */
  typeOnly: boolean;
  line: number;
  /** The names it imports (`type X` for a type-only one), `*` for a namespace, empty for a side effect or `import()`. */
  names: string[];
}

const root = path.resolve(import.meta.dirname, '../..');
const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');

function sourceFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFilesUnder(full);
    return /\.(ts|mts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Our own file an import names, or undefined for a package or `node:` module. */
function resolveOwn(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')];
  const found = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  if (!found) throw new Error(`${rel(fromFile)}: cannot resolve '${specifier}'`);
  return found;
}

interface RawImport {
  specifier: string;
  typeOnly: boolean;
  pos: number;
  names: string[];
}

const textOf = (node: Node | undefined): string | undefined =>
  node && node.kind === SyntaxKind.StringLiteral ? (node as unknown as { text: string }).text : undefined;

/** An import clause is type-only when written `import type`, or when it only names `type` specifiers. */
function importIsTypeOnly(node: Node): boolean {
  const clause = (node as unknown as { importClause?: ImportClauseLike }).importClause;
  if (!clause) return false; // `import './x.ts'`: a side effect, run time
  if (clause.phaseModifier === SyntaxKind.TypeKeyword || clause.isTypeOnly === true) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings || bindings.kind !== SyntaxKind.NamedImports) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

interface SpecifierLike {
  isTypeOnly: boolean;
  name: { text: string };
}

interface ImportClauseLike {
  phaseModifier?: SyntaxKind;
  isTypeOnly?: boolean;
  name?: { text: string };
  namedBindings?: { kind: SyntaxKind; elements: readonly SpecifierLike[] };
}

/** `type X` for a type-only name, as written in the import. */
const named = (all: boolean, specifiers: readonly SpecifierLike[]): string[] =>
  specifiers.map((s) => (all || s.isTypeOnly ? `type ${s.name.text}` : s.name.text));

function importNames(node: Node, typeOnly: boolean): string[] {
  const clause = (node as unknown as { importClause?: ImportClauseLike }).importClause;
  if (!clause) return [];
  const bindings = clause.namedBindings;
  return [
    ...(clause.name ? [typeOnly ? `type ${clause.name.text}` : clause.name.text] : []),
    ...(bindings?.kind === SyntaxKind.NamedImports ? named(typeOnly, bindings.elements) : bindings ? ['*'] : []),
  ];
}

function exportNames(node: Node, typeOnly: boolean): string[] {
  const clause = (node as unknown as { exportClause?: { kind: SyntaxKind; elements?: readonly SpecifierLike[] } }).exportClause;
  if (!clause) return ['*'];
  return clause.kind === SyntaxKind.NamedExports ? named(typeOnly, clause.elements ?? []) : ['*'];
}

function exportIsTypeOnly(node: Node): boolean {
  const decl = node as unknown as { isTypeOnly: boolean; exportClause?: { kind: SyntaxKind; elements?: readonly SpecifierLike[] } };
  if (decl.isTypeOnly) return true;
  const elements = decl.exportClause?.kind === SyntaxKind.NamedExports ? decl.exportClause.elements : undefined;
  return elements !== undefined && elements.length > 0 && elements.every((e) => e.isTypeOnly);
}

function importsOf(file: SourceFile): RawImport[] {
  const found: RawImport[] = [];
  const visit = (node: Node): void => {
    const n = node as unknown as Record<string, Node | undefined>;
    if (node.kind === SyntaxKind.ImportDeclaration) {
      const specifier = textOf(n.moduleSpecifier);
      const typeOnly = importIsTypeOnly(node);
      if (specifier) found.push({ specifier, typeOnly, pos: node.pos, names: importNames(node, typeOnly) });
    } else if (node.kind === SyntaxKind.ExportDeclaration) {
      const specifier = textOf(n.moduleSpecifier);
      const typeOnly = exportIsTypeOnly(node);
      if (specifier) found.push({ specifier, typeOnly, pos: node.pos, names: exportNames(node, typeOnly) });
    } else if (node.kind === SyntaxKind.ImportType) {
      const argument = n.argument as unknown as { literal?: Node } | undefined;
      const specifier = textOf(argument?.literal);
      if (specifier) found.push({ specifier, typeOnly: true, pos: node.pos, names: [] });
    } else if (node.kind === SyntaxKind.CallExpression && n.expression?.kind === SyntaxKind.ImportKeyword) {
      const args = (node as unknown as { arguments: readonly Node[] }).arguments;
      const specifier = textOf(args[0]);
      if (specifier) found.push({ specifier, typeOnly: false, pos: node.pos, names: [] });
    }
    node.forEachChild(visit);
  };
  file.forEachChild(visit);
  return found;
}

function lineAt(text: string, pos: number): number {
  // pos includes leading trivia: skip it so the line is the statement's own
  let at = pos;
  while (at < text.length && /\s/.test(text[at]!)) at++;
  while (text.startsWith('//', at) || text.startsWith('/*', at)) {
    at = text.startsWith('//', at) ? text.indexOf('\n', at) : text.indexOf('*/', at) + 2;
    if (at < 0) return 1;
    while (at < text.length && /\s/.test(text[at]!)) at++;
  }
  return text.slice(0, at).split('\n').length;
}

/** Every import between files of src/, with whether it is type-only. */
export function readImportGraph(): { files: string[]; edges: ImportEdge[] } {
  const files = sourceFilesUnder(path.join(root, 'src')).sort();
  const api = new API({ cwd: root });
  try {
    const project = api.updateSnapshot({ openProject: path.join(root, 'tsconfig.json') }).getProjects()[0];
    if (!project) throw new Error('tsconfig.json: no project');
    const edges = files.flatMap((file) => {
      const source = project.program.getSourceFile(file);
      if (!source) throw new Error(`${rel(file)} is not in tsconfig.json's program`);
      return importsOf(source).flatMap(({ specifier, typeOnly, pos, names }) => {
        const target = resolveOwn(file, specifier);
        return target ? [{ from: rel(file), to: rel(target), typeOnly, line: lineAt(source.text, pos), names }] : [];
      });
    });
    return { files: files.map(rel), edges };
  } finally {
    api.close();
  }
}

/** Strongly connected components with more than one file (or a file importing itself): each holds a cycle. */
export function cyclesOf(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (next.get(v) ?? []).includes(v)) components.push(component.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) connect(v);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One closed path through a component, for the message: a -> b -> ... -> a. */
export function cyclePath(component: readonly string[], edges: readonly ImportEdge[]): string[] {
  const inside = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const e of edges) {
      if (e.from !== v || !inside.has(e.to)) continue;
      if (e.to === start) {
        const path = [start];
        for (let at: string | undefined = v; at !== undefined && at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(e.to)) {
        previous.set(e.to, v);
        queue.push(e.to);
      }
    }
  }
  return [...component, start];
}
