/** `npm run start:starwars`: serves the Star Wars example graph on PORT (default 4001) at /graphql. */
import { createServer } from 'node:http';
import type { ReloadSchema } from '../../src/graphql/server.js';
import { joinDevLoop } from '../../src/lib/dev-loop.js';
import { createStarWarsServer } from './server.js';

const port = Number(process.env.PORT ?? 4001);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT: expected an integer between 0 and 65535, got ${process.env.PORT}`);
  process.exit(1);
}

// `npm run dev` runs this with NODE_ENV=development: a field still without a resolver is a warning
// there, and a regenerated SDL is served without a restart.
const development = process.env.NODE_ENV === 'development';
let reloadSchema: ReloadSchema | undefined;
const yoga = createStarWarsServer({
  missingResolvers: development ? 'warn' : 'error',
  ...(development && {
    onReloadSchema: (reload: ReloadSchema) => {
      reloadSchema = reload;
    },
  }),
});
// yoga answers every request itself (errors included); node:http only needs it started.
const server = createServer((request, response) => void yoga(request, response));
server.listen(port, () => {
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  console.log(`Star Wars graph at http://localhost:${bound}${yoga.graphqlEndpoint}`);
  joinDevLoop({ urls: [{ name: 'GraphQL', url: `http://localhost:${bound}${yoga.graphqlEndpoint}` }], reloadSchema });
});

let stopping = false;
function shutDown(): void {
  if (stopping) return;
  stopping = true;
  server.close(() => process.exit(0));
  server.closeAllConnections();
}
process.on('SIGINT', shutDown);
process.on('SIGTERM', shutDown);
