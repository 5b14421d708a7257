import type { CodegenConfig } from '@graphql-codegen/cli';
import { dbPreset } from './scripts/codegen-db.js';
import { openApiPreset } from './scripts/codegen-openapi.js';

/**
 * Everything under generated/, for graphql-codegen: `npm run codegen` (the CLI), `npm run codegen:check`
 * (its check mode) and `npm run dev` (its programmatic API) all read this.
 * The GraphQL projects use the codegen plugins; `openapi/*.yaml` go through openapi-typescript in a
 * preset of ours (scripts/codegen-openapi.ts), as do the upstream platforms' `openapi/upstreams/*.yaml`,
 * whose schemas it also compiles into runtime validators (scripts/codegen-validators.ts), and
 * `db/migrations/*.sql` go through kysely-codegen in another (scripts/codegen-db.ts).
 */
const out = 'generated';

/**
 * Shared by every server-side project. `avoidOptionals.resolvers` makes every field of every type
 * required in the generated `Resolvers` map, so a field added to SDL without a resolver fails
 * `npm run typecheck` with "Property '<field>' is missing".
 */
const resolverConfig = {
  useTypeImports: true,
  enumsAsTypes: true,
  strictScalars: true,
  avoidOptionals: { resolvers: true },
  useIndexSignature: false,
  emitLegacyCommonJSImports: false,
} as const;

const config: CodegenConfig = {
  overwrite: true,
  silent: true,
  errorsOnly: true,
  generates: {
    [`${out}/starwars/resolvers-types.ts`]: {
      schema: 'examples/starwars/schema/*.graphql',
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        ...resolverConfig,
        // `query: true` also makes the root Query fields required (avoidOptionals.resolvers skips root types).
        avoidOptionals: { resolvers: true, query: true },
        contextType: '../../examples/starwars/context.js#StarWarsContext',
        mappers: {
          Character: '../../examples/starwars/data.js#CharacterRecord',
          Human: '../../examples/starwars/data.js#HumanRecord',
          Droid: '../../examples/starwars/data.js#DroidRecord',
        },
      },
    },
    [`${out}/channel/resolvers-types.ts`]: {
      schema: 'schema/*.graphql',
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        ...resolverConfig,
        // `query: true` also makes the root Query fields required (avoidOptionals.resolvers skips root types).
        avoidOptionals: { resolvers: true, query: true },
        contextType: '../../src/graphql/schema/context.js#ChannelGraphContext',
        scalars: { DateTime: 'string' },
        // The domain models share names with SDL types (Supporter, Tier): import them as SupporterModel…
        mapperTypeSuffix: 'Model',
        mappers: {
          Supporter: '../../src/channel/models.js#Supporter',
          Patron: '../../src/channel/models.js#Supporter',
          ChannelMember: '../../src/channel/models.js#Supporter',
          Tier: '../../src/channel/models.js#Tier',
          ChannelStats: '../../src/channel/models.js#ChannelStatsView',
          SupporterEvent: '../../src/channel/supporter-events.js#SupporterChangeEvent',
          NotificationDelivery: '../../src/notifications/outbox.js#DeliveryView',
          Totals: '../../src/history/history-service.js#TotalsView',
          PlatformTotals: '../../src/history/snapshot-diff.js#PlatformTotals',
          TierTotals: '../../src/history/snapshot-diff.js#TierTotals',
          HistoryPoint: '../../src/history/history-queries.js#HistoryPoint',
          SupporterChangeRecord: '../../src/history/history-queries.js#ChangeRow',
          Goal: '../../src/history/history-service.js#GoalView',
          GoalReachedEvent: '../../src/channel/supporter-events.js#GoalReachedEvent',
        },
      },
    },
    [`${out}/client/`]: {
      schema: 'schema/*.graphql',
      documents: 'packages/client/operations/*.graphql',
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { mode: 'embedHashInDocument', hashAlgorithm: 'sha256' },
      },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        strictScalars: true,
        scalars: { DateTime: 'string' },
        emitLegacyCommonJSImports: false,
      },
    },
    // What client caches need to know of the schema (exported by @channel-graph/client/graphql-cache):
    // Apollo Client's possibleTypes, and the introspection urql's graphcache reads.
    [`${out}/client/possible-types.ts`]: {
      schema: 'schema/*.graphql',
      plugins: ['fragment-matcher'],
      config: { useExplicitTyping: true },
    },
    [`${out}/client/introspection.json`]: {
      schema: 'schema/*.graphql',
      plugins: ['introspection'],
      config: { minify: true, descriptions: false },
    },
    [`${out}/openapi/`]: {
      // The CLI requires a schema for every output; this one reads none (the contracts are its input).
      schema: 'schema/*.graphql',
      preset: openApiPreset,
      presetConfig: { contractsDir: 'openapi' },
      watchPattern: 'openapi/*.yaml',
      plugins: [],
    },
    // The upstream platforms' contracts: their types, and validators compiled from the same schemas.
    [`${out}/upstreams/`]: {
      schema: 'schema/*.graphql',
      preset: openApiPreset,
      presetConfig: { contractsDir: 'openapi/upstreams', validators: true },
      watchPattern: 'openapi/upstreams/*.yaml',
      plugins: [],
    },
    [`${out}/db/`]: {
      // As above: the migrations are this preset's input.
      schema: 'schema/*.graphql',
      preset: dbPreset,
      presetConfig: { migrationsDir: 'db/migrations' },
      watchPattern: 'db/migrations/*.sql',
      plugins: [],
    },
  },
  ignoreNoDocuments: true,
  // `silent` keeps the CLI's task list and stack traces out; this prints one message with file and
  // line (loaded only on failure: a successful run does not pay for it).
  hooks: { onError: async (message: string) => (await import('./scripts/codegen-failure.js')).reportCodegenFailure(config, message) },
};

export default config;
