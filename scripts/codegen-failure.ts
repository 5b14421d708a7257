/**
 * codegen.ts's onError hook: one clear message instead of the CLI's task tree and stack traces.
 * The SDL and operations of every output are diagnosed again with file and line
 * (scripts/graphql-diagnostics.ts); when they hold no problem (a plugin or OpenAPI failure), the
 * CLI's own message is shown without its stack.
 */
import type { CodegenConfig } from '@graphql-codegen/cli';
import { diagnoseProjects, formatDiagnostic, type GraphQLProject } from './graphql-diagnostics.js';

const asList = (value: unknown): string[] => (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');

/** The GraphQL projects of a codegen config: each output's SDL and operation patterns, once each. */
export function projectsOf(config: CodegenConfig): GraphQLProject[] {
  const projects = new Map<string, GraphQLProject>();
  for (const output of Object.values(config.generates)) {
    if (Array.isArray(output) || typeof output !== 'object') continue;
    const project = { schema: asList(output.schema), documents: asList(output.documents) };
    if (project.schema.length > 0) projects.set(JSON.stringify(project), project);
  }
  return [...projects.values()];
}

/** The message of an error printed with its stack (and nested causes): its first lines, up to the first frame. */
export function withoutStack(text: string): string {
  const lines = text.split('\n');
  const firstFrame = lines.findIndex((line) => /^\s+at /.test(line));
  return (firstFrame === -1 ? lines : lines.slice(0, firstFrame))
    .map((line) => line.replace(/^(Aggregate)?Error: /, ''))
    .filter((line) => line.trim() !== '')
    .join('\n');
}

/** Prints why codegen failed, once, to stderr. */
export async function reportCodegenFailure(config: CodegenConfig, cliMessage: string): Promise<void> {
  const diagnostics = await diagnoseProjects(projectsOf(config));
  const detail = diagnostics.length > 0 ? diagnostics.map(formatDiagnostic).join('\n') : withoutStack(cliMessage);
  process.stderr.write(`codegen failed:\n${detail}\n`);
}
