/**
 * Shared benchmark helpers. Every bench lives in `bench/<name>/run.ts`, runs alone with
 * `npx tsx bench/<name>/run.ts`, prints a table and saves JSON to `bench/results/<name>.json`.
 *
 * API
 * - `runLoad(options): Promise<LoadResult>` (load.ts) — autocannon in a child process against
 *   `options.url` with `method` (GET), `body`, `headers`, `connections` (10), `durationSeconds` (10),
 *   `warmupSeconds` (2, unmeasured), `pipelining` (1). Returns `{ requestsPerSecond, p50Ms, p99Ms,
 *   requests, bytesRead, non2xx, errors }`; throws if any response was non-2xx or any request failed.
 * - `listen(serverOrHandler, options?): Promise<Listening>` (src/lib/listen.ts) — listens a
 *   `node:http` server or a request listener (a yoga instance works) on 127.0.0.1:0; `Listening` is
 *   `{ url /* http://127.0.0.1:PORT *\/, close() }`.
 * - `startFloorServer({ body, contentType? }): Promise<Listening>` (floor.ts) — raw `node:http`
 *   server answering every request with the same bytes: the floor a real server is compared with.
 * - `formatLoadTable(rows, baselines)` (table.ts) — rows `{ name, result: LoadResult }`; one
 *   `× <name>` req/s ratio column per baseline row. `formatTable(header, rows)` for any other table,
 *   `ratio(value, baseline)` rounds to two decimals.
 * - `copyProject(): Promise<ProjectCopy>` (test/support/project-copy.ts, shared with the tests) — the project's sources copied to a temp
 *   dir with node_modules symlinked; `npmRun(script)` → `{ exitCode, output }` (never throws),
 *   `readText`/`writeText(path)` relative to the copy, `remove()`. Used by bench/codegen and the
 *   foundation tests.
 * - `saveResults(name, figures): Promise<string>` (results.ts) — writes
 *   `bench/results/<name>.json` as `{ name, measuredAt, machine, ...figures }`; returns the path.
 *
 * Example
 * ```ts
 * const ours = await listen(createMyServer());
 * const floor = await startFloorServer({ body: expectedJson });
 * const rows = [
 *   { name: 'ours', result: await runLoad({ url: `${ours.url}/graphql`, method: 'POST', body, headers }) },
 *   { name: 'floor', result: await runLoad({ url: floor.url }) },
 * ];
 * console.log(formatLoadTable(rows, ['floor']));
 * await saveResults('mybench', { rows });
 * ```
 */
export { runLoad, type LoadOptions, type LoadResult } from './load.js';
export { listen, type RequestHandler as Handler, type Listening } from '../../src/lib/listen.js';
export { startFloorServer, type FloorOptions } from './floor.js';
export { formatLoadTable, formatTable, ratio, type Row } from './table.js';
export { copyProject, projectRoot, type ProjectCopy, type ScriptRun } from '../../test/support/project-copy.js';
export { saveResults, describeMachine, resultsDir, type Machine } from './results.js';
export { readStartScript, type StartScript } from './start-script.js';
