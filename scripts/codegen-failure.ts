/**
 * Why a codegen run failed, in one clear message instead of the CLI's task tree and stack traces:
 * the SDL and operations of every output are diagnosed again with file and line
 * (scripts/graphql-diagnostics.ts), and the OpenAPI contracts' YAML too (openapi-typescript's error
 * would not say where); when they hold no problem (a plugin failure), the CLI's own message is shown
 * without its stack. codegen.ts's onError hook prints it (`npm run codegen`), and `npm run dev` prints
 * the same lines when one of its runs fails.
 */
import { readFile } from 'node:fs/promises';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { glob } from 'tinyglobby';
import { parseDocument } from 'yaml';
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

/** YAML errors of the OpenAPI contracts, as `file:line:column message`. */
async function contractProblems(): Promise<string[]> {
  const problems: string[] = [];
  for (const file of (await glob(['openapi/*.yaml'])).sort()) {
    for (const error of parseDocument(await readFile(file, 'utf8')).errors) {
      const [start] = error.linePos ?? [];
      problems.push(`${file}:${start?.line ?? 1}:${start?.col ?? 1} ${error.message.split('\n')[0] ?? ''}`);
    }
  }
  return problems;
}

/** Why a run failed, line by line: with file and line where the inputs say, else the CLI's message. */
export async function codegenFailureLines(config: CodegenConfig, cliMessage: string): Promise<string[]> {
  const problems = [...(await diagnoseProjects(projectsOf(config))).map(formatDiagnostic), ...(await contractProblems())];
  return problems.length > 0 ? problems : withoutStack(cliMessage).split('\n');
}

/** Prints why codegen failed, once, to stderr, and how to run it again. */
export async function reportCodegenFailure(config: CodegenConfig, cliMessage: string): Promise<void> {
  const lines = await codegenFailureLines(config, cliMessage);
  process.stderr.write(`codegen failed:\n${lines.join('\n')}\n`);
}
