/**
 * What an edit of the public contracts does to the apps built on the last release: every change of
 * the GraphQL schema (@graphql-inspector/core) and of each published OpenAPI contract
 * (api-smart-diff), classified breaking / dangerous / safe with its path, and every shipped operation
 * and trusted document that no longer validates. Used by `npm run schema:check`,
 * `npm run schema:release` and `npm run dev`.
 *
 * The release baseline lives in released/ (written by schema:release), not in schema/: every
 * `*.graphql` under schema/ is part of the served schema.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CriticalityLevel, diff as diffSchemas, type Change } from '@graphql-inspector/core';
import { apiDiff, type Diff } from 'api-smart-diff';
import { Source, type GraphQLSchema } from 'graphql';
import { parse as parseYaml } from 'yaml';
import { buildSchemaFrom, readSources, validateManifest, validateOperations, type Diagnostic } from './graphql-diagnostics.js';

export const SCHEMA_PATTERNS = ['schema/*.graphql'] as const;
export const OPERATION_PATTERNS = ['packages/client/operations/*.graphql'] as const;
export const MANIFEST_PATH = 'generated/client/persisted-documents.json';
export const ACCEPTED_CHANGES_PATH = 'schema/accepted-changes.json';
export const RELEASED_DIR = 'released';
export const RELEASED_SCHEMA_PATH = `${RELEASED_DIR}/schema.graphql`;
/**
 * The OpenAPI contracts downstream apps call. openapi/oauth2.yaml is not one of them: it describes
 * the upstream platform's token endpoint, which this project calls.
 */
export const PUBLISHED_CONTRACTS = ['openapi/channel-api.yaml'] as const;

export const releasedContractPath = (contract: string): string => join(RELEASED_DIR, contract.split('/').at(-1) ?? contract);

export type ChangeLevel = 'breaking' | 'dangerous' | 'safe';

export interface ContractChange {
  /** Stable across runs: what `schema/accepted-changes.json` names to acknowledge the change. */
  id: string;
  level: ChangeLevel;
  /** The SDL file set (`schema`) or the contract file. */
  contract: string;
  /** `Type.field.argument` in GraphQL, a JSON path in OpenAPI. */
  path: string;
  message: string;
  /** Why the change has its level, when the diff says. */
  reason?: string;
}

/** One acknowledged breaking change: which one, and why the release may break its clients. */
export interface AcceptedChange {
  change: string;
  reason: string;
}

/** The last release's contracts. */
export interface Baseline {
  /** Where it comes from: `released/` or `git <ref>`. */
  name: string;
  sdl: Source[];
  /** Published contract path (`openapi/channel-api.yaml`) → its text; absent when it was not published yet. */
  contracts: Map<string, string>;
}

const run = promisify(execFile);

export async function releasedBaseline(): Promise<Baseline> {
  const contracts = new Map<string, string>();
  for (const contract of PUBLISHED_CONTRACTS) {
    const text = await readFile(releasedContractPath(contract), 'utf8').catch(() => undefined);
    if (text !== undefined) contracts.set(contract, text);
  }
  const sdl = await readFile(RELEASED_SCHEMA_PATH, 'utf8').catch(() => {
    throw new Error(`${RELEASED_SCHEMA_PATH} not found: \`npm run schema:release\` sets the first baseline`);
  });
  return { name: `${RELEASED_DIR}/`, sdl: [new Source(sdl, RELEASED_SCHEMA_PATH)], contracts };
}

/** The contracts as committed at a git revision (`--base main`, `--base v1.2.0`). */
export async function gitBaseline(ref: string): Promise<Baseline> {
  const show = async (path: string): Promise<string | undefined> =>
    run('git', ['show', `${ref}:${path}`], { maxBuffer: 16 * 1024 * 1024 }).then(({ stdout }) => stdout, () => undefined);
  const { stdout } = await run('git', ['ls-tree', '--name-only', ref, 'schema/']);
  const files = stdout.split('\n').filter((file) => file.endsWith('.graphql')).sort();
  if (files.length === 0) throw new Error(`git ${ref} has no schema/*.graphql`);
  const sdl = await Promise.all(files.map(async (file) => new Source((await show(file)) ?? '', `${ref}:${file}`)));
  const contracts = new Map<string, string>();
  for (const contract of PUBLISHED_CONTRACTS) {
    const text = await show(contract);
    if (text !== undefined) contracts.set(contract, text);
  }
  return { name: `git ${ref}`, sdl, contracts };
}

const LEVEL_OF: Record<CriticalityLevel, ChangeLevel> = {
  [CriticalityLevel.Breaking]: 'breaking',
  [CriticalityLevel.Dangerous]: 'dangerous',
  [CriticalityLevel.NonBreaking]: 'safe',
};

export async function graphqlChanges(before: GraphQLSchema, after: GraphQLSchema): Promise<ContractChange[]> {
  const changes: Change[] = await diffSchemas(before, after);
  return changes.map((change) => ({
    id: `schema ${change.type} ${change.path ?? ''}`.trim(),
    level: LEVEL_OF[change.criticality.level],
    contract: 'schema',
    path: change.path ?? '',
    message: change.message,
    ...(change.criticality.reason ? { reason: change.criticality.reason } : {}),
  }));
}

/** api-smart-diff's classes: `deprecated` and `unclassified` are neither surely safe nor surely breaking. */
const OPENAPI_LEVEL_OF: Record<Diff['type'], ChangeLevel> = {
  breaking: 'breaking',
  deprecated: 'dangerous',
  unclassified: 'dangerous',
  'non-breaking': 'safe',
  annotation: 'safe',
};

/** JSON path as a JSON Pointer (RFC 6901), the form OpenAPI tools print. */
const pointer = (path: ReadonlyArray<string | number>): string => `/${path.map((key) => String(key).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

/**
 * The changes between two versions of one OpenAPI contract. api-smart-diff reports a change of a
 * shared component both where it is defined and where each operation uses it; both are kept, as
 * its rules sometimes classify the two differently (a response property's type change is breaking
 * under components/, "non-breaking" under the operation) and the worse one must not be lost.
 */
export function openapiChanges(contract: string, beforeText: string, afterText: string): ContractChange[] {
  const diffs = apiDiff(parseYaml(beforeText), parseYaml(afterText));
  return diffs.map((change) => {
    const path = pointer(change.path);
    return {
      id: `${contract} ${change.action} ${path}`,
      level: OPENAPI_LEVEL_OF[change.type],
      contract,
      path,
      message: change.description ?? `${change.action} ${path}`,
    };
  });
}

export async function readAcceptedChanges(path = ACCEPTED_CHANGES_PATH): Promise<AcceptedChange[]> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  const parsed = JSON.parse(text) as { accepted?: unknown };
  const list = Array.isArray(parsed.accepted) ? parsed.accepted : [];
  return list.map((entry, index) => {
    const { change, reason } = (entry ?? {}) as Partial<AcceptedChange>;
    if (typeof change !== 'string' || typeof reason !== 'string' || reason.trim() === '') {
      throw new Error(`${path}: accepted[${index}] needs "change" (the id schema:check prints) and a non-empty "reason"`);
    }
    return { change, reason };
  });
}

export interface SchemaReport {
  baseline: string;
  changes: ContractChange[];
  /** SDL that does not build, a contract that does not parse, operations and trusted documents that no longer validate. */
  problems: Diagnostic[];
  /** Breaking changes not in accepted-changes.json. */
  unacknowledged: ContractChange[];
  /** Breaking changes acknowledged, with the reason given. */
  acknowledged: Array<ContractChange & { acceptedBecause: string }>;
  /** Acknowledgements that match no current change (left over, or mistyped). */
  unmatched: AcceptedChange[];
}

export const reportFails = (report: SchemaReport): boolean => report.problems.length > 0 || report.unacknowledged.length > 0;

async function contractChanges(baseline: Baseline, problems: Diagnostic[]): Promise<ContractChange[]> {
  const changes: ContractChange[] = [];
  for (const contract of PUBLISHED_CONTRACTS) {
    const before = baseline.contracts.get(contract);
    const after = await readFile(contract, 'utf8').catch(() => undefined);
    if (before === undefined) continue; // not published yet: nothing to break
    if (after === undefined) {
      changes.push({ id: `${contract} remove /`, level: 'breaking', contract, path: '/', message: `${contract} was removed` });
      continue;
    }
    try {
      changes.push(...openapiChanges(contract, before, after));
    } catch (error) {
      problems.push({ file: contract, line: 1, column: 1, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return changes;
}

/** Compares the working tree's contracts with a baseline and validates what ships against the edited schema. */
export async function checkSchema(baseline: Baseline): Promise<SchemaReport> {
  const problems: Diagnostic[] = [];
  const changes: ContractChange[] = [];
  const edited = buildSchemaFrom(await readSources(SCHEMA_PATTERNS));
  problems.push(...edited.diagnostics);
  const released = buildSchemaFrom(baseline.sdl);
  problems.push(...released.diagnostics);
  if (edited.schema) {
    problems.push(...validateOperations(edited.schema, await readSources(OPERATION_PATTERNS)));
    const manifest = await readFile(MANIFEST_PATH, 'utf8').catch(() => undefined);
    if (manifest !== undefined) problems.push(...validateManifest(edited.schema, JSON.parse(manifest) as Record<string, string>, MANIFEST_PATH));
    if (released.schema) changes.push(...(await graphqlChanges(released.schema, edited.schema)));
  }
  changes.push(...(await contractChanges(baseline, problems)));
  // The SQL contract: what the migrations added since the release does to the tables.
  const { migrationChanges, releasedMigrations } = await import('./schema-migrations.js');
  try {
    changes.push(...(await migrationChanges(await releasedMigrations())));
  } catch (error) {
    problems.push({ file: 'db/migrations', line: 1, column: 1, message: error instanceof Error ? error.message : String(error) });
  }

  const accepted = await readAcceptedChanges();
  const reasonOf = new Map(accepted.map((entry) => [entry.change, entry.reason]));
  const breaking = changes.filter((change) => change.level === 'breaking');
  const ids = new Set(changes.map((change) => change.id));
  return {
    baseline: baseline.name,
    changes,
    problems,
    unacknowledged: breaking.filter((change) => !reasonOf.has(change.id)),
    acknowledged: breaking.flatMap((change) => {
      const reason = reasonOf.get(change.id);
      return reason === undefined ? [] : [{ ...change, acceptedBecause: reason }];
    }),
    unmatched: accepted.filter((entry) => !ids.has(entry.change)),
  };
}
