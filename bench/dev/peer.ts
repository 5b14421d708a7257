/**
 * The peer the dev loop is measured against: a minimal project built the usual way on the same SDL
 * (examples/starwars/schema/starwars.graphql) — graphql-yoga reading the SDL at start, resolvers typed
 * by graphql-codegen's typescript-resolvers (as strict as ours: every field needs a resolver), and
 * three watchers side by side: `graphql-codegen --watch`, `tsc --watch`, `tsx watch` (restarting on
 * the SDL too). Written to a temp directory by bench/dev/run.ts, with the node_modules of this project.
 */
export const PEER_FILES: Readonly<Record<string, string>> = {
  'package.json': `{ "name": "dev-loop-peer", "private": true, "type": "module" }
`,
  'tsconfig.json': `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "skipLibCheck": true,
    "noEmit": true,
    "types": ["node"]
  },
  "include": ["*.ts", "generated"]
}
`,
  'codegen.ts': `import type { CodegenConfig } from '@graphql-codegen/cli';

/** The usual resolver types, as strict as the project's (every field needs a resolver). */
const config: CodegenConfig = {
  overwrite: true,
  schema: 'schema.graphql',
  generates: {
    'generated/resolvers-types.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: { useTypeImports: true, enumsAsTypes: true, avoidOptionals: { resolvers: true, query: true }, mappers: { Character: '../data.js#CharacterRecord', Human: '../data.js#CharacterRecord', Droid: '../data.js#CharacterRecord' }, mapperTypeSuffix: '' },
    },
  },
};

export default config;
`,
  'data.ts': `/** Three characters, enough for the queries the benchmark sends. */
export interface CharacterRecord {
  kind: 'Human' | 'Droid';
  id: string;
  name: string;
  friends: string[];
  appearsIn: Array<'NEW_HOPE' | 'EMPIRE' | 'JEDI'>;
  homePlanet?: string;
  primaryFunction?: string;
}

export const characters: CharacterRecord[] = [
  { kind: 'Human', id: '1000', name: 'Luke Skywalker', friends: ['2001'], appearsIn: ['NEW_HOPE', 'EMPIRE', 'JEDI'], homePlanet: 'Tatooine' },
  { kind: 'Human', id: '1003', name: 'Leia Organa', friends: ['1000'], appearsIn: ['NEW_HOPE', 'EMPIRE', 'JEDI'], homePlanet: 'Alderaan' },
  { kind: 'Droid', id: '2001', name: 'R2-D2', friends: ['1000', '1003'], appearsIn: ['NEW_HOPE', 'EMPIRE', 'JEDI'], primaryFunction: 'Astromech' },
];

export const byId = (id: string): CharacterRecord | null => characters.find((character) => character.id === id) ?? null;
`,
  'resolvers.ts': `import type { Resolvers } from './generated/resolvers-types.js';
import { byId, type CharacterRecord } from './data.js';

const characterFields = {
  id: (character: CharacterRecord) => character.id,
  name: (character: CharacterRecord) => character.name,
  friends: (character: CharacterRecord) => character.friends.map(byId),
  appearsIn: (character: CharacterRecord) => character.appearsIn,
};

export const resolvers: Resolvers = {
  Query: {
    hero: () => byId('2001'),
    human: (_root, { id }) => (byId(id)?.kind === 'Human' ? byId(id) : null),
    droid: (_root, { id }) => (byId(id)?.kind === 'Droid' ? byId(id) : null),
  },
  Character: { __resolveType: (character) => character.kind },
  Human: {
    ...characterFields,
    homePlanet: (character) => character.homePlanet ?? null,
  },
  Droid: {
    ...characterFields,
    primaryFunction: (character) => character.primaryFunction ?? null,
  },
};
`,
  'server.ts': `/** The usual yoga server: the SDL read at start, resolvers typed by the generated types. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { resolvers } from './resolvers.js';

const yoga = createYoga({ schema: createSchema({ typeDefs: readFileSync('schema.graphql', 'utf8'), resolvers }) });
const server = createServer(yoga);
server.listen(Number(process.env.PORT ?? 4002), '127.0.0.1', () => {
  console.log(\`peer graph at http://127.0.0.1:\${(server.address() as AddressInfo).port}/graphql\`);
});
`,
};

/** The three watchers, as a developer starts them (each in a terminal, or with `concurrently`). */
export const PEER_WATCHERS = {
  codegen: ['graphql-codegen', '--config', 'codegen.ts', '--watch'],
  types: ['tsc', '--noEmit', '--watch', '--preserveWatchOutput', '--pretty', 'false', '-p', 'tsconfig.json'],
  server: ['tsx', 'watch', '--clear-screen=false', '--include', 'schema.graphql', 'server.ts'],
} as const;
