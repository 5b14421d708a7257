/**
 * The peer `npm run dev` is measured against: the usual setup, three watchers side by side on the
 * same project (a copy of this one: the same channel SDL, codegen.ts, code and checker), each in a
 * terminal of its own or under `concurrently`:
 * - `graphql-codegen --watch` (the CLI's own watch, on codegen.ts);
 * - `tsc --watch` of TypeScript 7 (what `npm install typescript` gives now), on tsconfig.dev.json as ours;
 * - `tsx watch` on the server, restarting on the SDL too (the server reads it at start), in
 *   development mode as ours.
 * Each entry: the package whose executable runs, and its arguments.
 */
export const PEER_WATCHERS = {
  codegen: { bin: ['@graphql-codegen/cli', 'graphql-codegen'], args: ['--config', 'codegen.ts', '--watch'] },
  types: { bin: ['typescript-7', 'tsc'], args: ['--noEmit', '--watch', '--preserveWatchOutput', '--pretty', 'false', '-p', 'tsconfig.dev.json'] },
  server: { bin: ['tsx', 'tsx'], args: ['watch', '--clear-screen=false', '--include', 'schema/*.graphql', 'src/main.ts'] },
} as const;
