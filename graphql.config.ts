import type { IGraphQLConfig } from 'graphql-config';

/** Tells @graphql-eslint which schema each set of SDL and operation documents belongs to. */
const config: IGraphQLConfig = {
  projects: {
    channel: { schema: 'schema/*.graphql', documents: 'packages/client/operations/*.graphql' },
    starwars: { schema: 'examples/starwars/schema/*.graphql' },
  },
};

export default config;
