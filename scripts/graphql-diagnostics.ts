/**
 * SDL and operations read the way a person fixes them: every problem as `file:line:column message`.
 * graphql-codegen's loaders report a syntax error without its file or line, and an invalid schema as
 * one joined message; codegen.ts (onError), `npm run schema:check` and `npm run dev` use this instead.
 */
import { readFile } from 'node:fs/promises';
import {
  buildASTSchema,
  concatAST,
  GraphQLError,
  Kind,
  parse,
  Source,
  validate,
  validateSchema,
  visit,
  type ASTNode,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { glob } from 'tinyglobby';

export interface Diagnostic {
  /** The file (or `manifest#id`) the problem is in. */
  file: string;
  line: number;
  column: number;
  message: string;
}

export const formatDiagnostic = ({ file, line, column, message }: Diagnostic): string => `${file}:${line}:${column} ${message}`;

/** The sources behind glob patterns (relative to the working directory), sorted, each named by its path. */
export async function readSources(patterns: readonly string[]): Promise<Source[]> {
  const files = (await glob([...patterns], { expandDirectories: false })).sort();
  return Promise.all(files.map(async (file) => new Source(await readFile(file, 'utf8'), file)));
}

function diagnosticOf(error: GraphQLError, prefix = ''): Diagnostic {
  const [location] = error.locations ?? [];
  const source = error.source ?? error.nodes?.[0]?.loc?.source;
  return { file: source?.name ?? '<unknown>', line: location?.line ?? 1, column: location?.column ?? 1, message: prefix + error.message };
}

/** Parses every source; syntax errors become diagnostics and their source is left out. */
export function parseSources(sources: readonly Source[]): { documents: DocumentNode[]; diagnostics: Diagnostic[] } {
  const documents: DocumentNode[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const source of sources) {
    try {
      documents.push(parse(source));
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      diagnostics.push(diagnosticOf(error));
    }
  }
  return { documents, diagnostics };
}

/** The first node naming `name` (a type, field or argument), for messages that carry no location. */
function firstMention(documents: readonly DocumentNode[], name: string): ASTNode | undefined {
  const [typeName, fieldName] = name.split('.');
  for (const document of documents) {
    let found: ASTNode | undefined;
    visit(document, {
      Name(node) {
        if (found === undefined && (node.value === (fieldName ?? typeName))) found = node;
      },
    });
    if (found) return found;
  }
  return undefined;
}

/**
 * graphql-js validates SDL in buildASTSchema and throws one Error joining every message, without
 * locations; each message quotes the name it is about, which is enough to point at it.
 */
function sdlErrors(error: Error, documents: readonly DocumentNode[]): Diagnostic[] {
  return error.message.split('\n\n').map((message) => {
    const quoted = /"([^"]+)"/.exec(message)?.[1];
    const node = quoted === undefined ? undefined : firstMention(documents, quoted);
    return node ? diagnosticOf(new GraphQLError(message, { nodes: node })) : { file: '<schema>', line: 1, column: 1, message };
  });
}

/** Builds a schema from SDL sources; the schema only when it has no problem at all. */
export function buildSchemaFrom(sources: readonly Source[]): { schema?: GraphQLSchema; diagnostics: Diagnostic[] } {
  const { documents, diagnostics } = parseSources(sources);
  if (diagnostics.length > 0) return { diagnostics };
  let schema: GraphQLSchema;
  try {
    schema = buildASTSchema(concatAST(documents));
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return { diagnostics: sdlErrors(error, documents) };
  }
  const invalid = validateSchema(schema).map((problem) => diagnosticOf(problem));
  return invalid.length > 0 ? { diagnostics: invalid } : { schema, diagnostics: [] };
}

function describe(definition: DefinitionNode): string {
  if (definition.kind === Kind.OPERATION_DEFINITION) return `${definition.operation} ${definition.name?.value ?? '(anonymous)'}`;
  if (definition.kind === Kind.FRAGMENT_DEFINITION) return `fragment ${definition.name.value}`;
  return definition.kind;
}

/** The operation or fragment holding a node, named for the message. */
function enclosing(definitions: readonly DefinitionNode[], node: ASTNode | undefined): string | undefined {
  const loc = node?.loc;
  if (!loc) return undefined;
  const definition = definitions.find((candidate) => candidate.loc?.source === loc.source && candidate.loc.start <= loc.start && loc.end <= candidate.loc.end);
  return definition ? describe(definition) : undefined;
}

/**
 * Validates operation documents against a schema, all files as one document (a fragment may live in
 * another file than the operations spreading it), naming the file, line, operation and field.
 */
export function validateOperations(schema: GraphQLSchema, sources: readonly Source[]): Diagnostic[] {
  const { documents, diagnostics } = parseSources(sources);
  if (documents.length === 0) return diagnostics;
  const all = concatAST(documents);
  return [
    ...diagnostics,
    ...validate(schema, all).map((error) => {
      const where = enclosing(all.definitions, error.nodes?.[0]);
      return diagnosticOf(error, where ? `${where}: ` : '');
    }),
  ];
}

/**
 * Validates each document of a trusted-documents manifest (document id → text) on its own, as the
 * server runs them: a persisted id already shipped to clients must keep validating.
 */
export function validateManifest(schema: GraphQLSchema, manifest: Readonly<Record<string, string>>, manifestPath: string): Diagnostic[] {
  return Object.entries(manifest).flatMap(([id, text]) => {
    const operation = /\b(query|mutation|subscription)\s+(\w+)/.exec(text);
    const label = operation ? `${operation[1]} ${operation[2]}, ` : '';
    return validateOperations(schema, [new Source(text, `${manifestPath} [${label}${id}]`)]);
  });
}

/** What codegen.ts feeds one output: SDL patterns and operation patterns. */
export interface GraphQLProject {
  schema: readonly string[];
  documents: readonly string[];
}

/** Every problem of every project (SDL first, then its operations), each reported once. */
export async function diagnoseProjects(projects: readonly GraphQLProject[]): Promise<Diagnostic[]> {
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const project of projects) {
    const built = buildSchemaFrom(await readSources(project.schema));
    const found = built.schema && project.documents.length > 0 ? validateOperations(built.schema, await readSources(project.documents)) : built.diagnostics;
    for (const diagnostic of found) {
      const line = formatDiagnostic(diagnostic);
      if (!seen.has(line)) diagnostics.push(diagnostic);
      seen.add(line);
    }
  }
  return diagnostics;
}
