/**
 * The GraphQL half of `npm run codegen` (scripts/codegen.ts): every output of codegen.ts, written
 * exactly as the graphql-codegen CLI writes it, without the CLI.
 *
 * Why not the CLI: a cold run is mostly module loading, and the CLI loads every schema source it
 * supports (URL, git, GitHub, code files with Babel, Apollo Engine) before it reads one file; this
 * project only reads `.graphql` files. So this runs the CLI's pipeline (@graphql-codegen/cli
 * codegen.js: load schema → load documents → preset or plugins → write) with the GraphQL-file loader
 * alone and the CLI's load options, which halves graphql-codegen's load time. The packages are loaded
 * with `require` (their CommonJS builds, as the CLI loads plugins): under tsx every ES module import is
 * a round trip to tsx's loader thread, and require loads the same graph ~40 % faster. Output is byte-identical
 * to the CLI's (`npm run codegen:check` compares with the committed files). `npm run dev` still
 * watches with the CLI, on the same codegen.ts. A codegen.ts feature this runner does not implement is
 * refused by name rather than ignored.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, resolve } from 'node:path';
import type { CodegenConfig } from '@graphql-codegen/cli';
import type * as Core from '@graphql-codegen/core';
import type * as PluginHelpers from '@graphql-codegen/plugin-helpers';
import type { CodegenPlugin, Types } from '@graphql-codegen/plugin-helpers';
import type * as GraphQLFileLoaderModule from '@graphql-tools/graphql-file-loader';
import type * as Load from '@graphql-tools/load';

const require = createRequire(import.meta.url);
const { codegen } = require('@graphql-codegen/core') as typeof Core;
const { createNoopProfiler, getCachedDocumentNodeFromSchema, normalizeConfig, normalizeImportExtension } = require('@graphql-codegen/plugin-helpers') as typeof PluginHelpers;
const { GraphQLFileLoader } = require('@graphql-tools/graphql-file-loader') as typeof GraphQLFileLoaderModule;
const { loadDocuments, loadSchema } = require('@graphql-tools/load') as typeof Load;

/** The root keys of codegen.ts this runner implements; anything else is an error. */
const SUPPORTED_ROOT = new Set(['overwrite', 'silent', 'errorsOnly', 'generates', 'ignoreNoDocuments', 'config']);
const SUPPORTED_OUTPUT = new Set(['schema', 'documents', 'plugins', 'preset', 'presetConfig', 'config']);

/** The CLI's defaults (@graphql-codegen/cli load.js). */
const SCHEMA_LOAD_OPTIONS = { assumeValidSDL: true, sort: true, convertExtensions: true, includeSources: true } as const;
const DOCUMENTS_LOAD_OPTIONS = { sort: true, skipGraphQLImport: true } as const;

type OutputConfig = Types.ConfiguredOutput;
type Cache = <T>(namespace: string, key: string, factory: () => Promise<T>) => Promise<T>;

function refuseUnsupported(keys: string[], supported: Set<string>, where: string): void {
  const unsupported = keys.filter((key) => !supported.has(key));
  if (unsupported.length > 0) throw new Error(`scripts/codegen.ts does not implement ${unsupported.join(', ')} (${where}); use the graphql-codegen CLI`);
}

function pointers(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (!list.every((item): item is string => typeof item === 'string')) throw new Error(`${where}: only glob strings are supported`);
  return list;
}

/** The CLI's plugin and preset names: `typescript` is `@graphql-codegen/typescript`, `client` is `@graphql-codegen/client-preset`. */
function loadPlugin(name: string): CodegenPlugin {
  return require(`@graphql-codegen/${name}`) as CodegenPlugin;
}

function loadPreset(name: string): Types.OutputPreset {
  return (require(`@graphql-codegen/${name}-preset`) as { preset: Types.OutputPreset }).preset;
}

/** Memoises schema and document loads shared by several outputs (the CLI's `cache`). */
function createCache(): Cache {
  const entries = new Map<string, Promise<unknown>>();
  return <T>(namespace: string, key: string, factory: () => Promise<T>): Promise<T> => {
    const id = `${namespace}:${key}`;
    if (!entries.has(id)) entries.set(id, factory());
    return entries.get(id) as Promise<T>;
  };
}

async function generateOutput(filename: string, output: OutputConfig, root: CodegenConfig, cache: Cache): Promise<Types.FileOutput[]> {
  refuseUnsupported(Object.keys(output), SUPPORTED_OUTPUT, `generates["${filename}"]`);
  const schemaPointers = pointers(output.schema, `generates["${filename}"].schema`);
  const documentPointers = pointers(output.documents, `generates["${filename}"].documents`);
  const loaders = [new GraphQLFileLoader()];

  const schemaAst = await cache('schema', schemaPointers.join('\n'), () => loadSchema(schemaPointers, { ...SCHEMA_LOAD_OPTIONS, loaders }));
  const schema = getCachedDocumentNodeFromSchema(schemaAst);
  // Generated files are never documents (the CLI ignores every output path that names a file).
  const ignore = Object.keys(root.generates).filter((path) => extname(path) !== '').map((path) => resolve(path));
  const documents: Types.DocumentFile[] =
    documentPointers.length === 0
      ? []
      : await cache('documents', documentPointers.join('\n'), async () => {
          try {
            const loaded = await loadDocuments(documentPointers, { ...DOCUMENTS_LOAD_OPTIONS, ignore, loaders });
            return loaded.map((source) => ({ ...source, type: 'standard' as const }));
          } catch (error) {
            if (root.ignoreNoDocuments === true) return [];
            throw error;
          }
        });

  const plugins = normalizeConfig(output.plugins ?? []);
  const pluginMap = Object.fromEntries(plugins.map((plugin) => {
    const name = Object.keys(plugin)[0] ?? '';
    return [name, loadPlugin(name)] as const;
  }));
  const rawConfig = { ...(root.config ?? {}), ...(output.config ?? {}) } as Record<string, unknown> & { emitLegacyCommonJSImports?: boolean; importExtension?: '' | `.${string}` };
  const importExtension = normalizeImportExtension({ emitLegacyCommonJSImports: rawConfig.emitLegacyCommonJSImports, importExtension: rawConfig.importExtension });
  const emitLegacyCommonJSImports = rawConfig.emitLegacyCommonJSImports ?? true;
  const mergedConfig = { ...rawConfig, importExtension, emitLegacyCommonJSImports };
  const common = { plugins, schema, schemaAst, documents, config: mergedConfig, pluginMap, pluginContext: {}, profiler: createNoopProfiler(), documentTransforms: [] };

  const outputs: Types.GenerateOptions[] =
    typeof output.preset === 'string'
      ? await loadPreset(output.preset).buildGeneratesSection({ baseOutputDir: filename, presetConfig: output.presetConfig ?? {}, ...common })
      : output.preset === undefined
        ? [{ filename, ...common }]
        : [];
  if (output.preset !== undefined && typeof output.preset !== 'string') throw new Error(`generates["${filename}"].preset: only preset names are supported`);
  return Promise.all(
    outputs.map(async (options) => ({
      filename: options.filename,
      content: await codegen({ ...options, importExtension, emitLegacyCommonJSImports, cache }),
    })),
  );
}

/** Runs every output of a codegen.ts config in order and writes the files (the CLI's `overwrite: true`). */
export async function generateGraphQL(root: CodegenConfig): Promise<string[]> {
  refuseUnsupported(Object.keys(root), SUPPORTED_ROOT, 'codegen.ts');
  const cache = createCache();
  const files: Types.FileOutput[] = [];
  for (const [filename, output] of Object.entries(root.generates)) {
    if (Array.isArray(output) || typeof output !== 'object') throw new Error(`generates["${filename}"]: only an output object is supported`);
    files.push(...(await generateOutput(filename, output, root, cache)));
  }
  await Promise.all(
    files
      .filter((file) => file.content.length > 0)
      .map(async (file) => {
        await mkdir(dirname(file.filename), { recursive: true });
        await writeFile(file.filename, file.content);
      }),
  );
  return files.map((file) => file.filename);
}
