// @ts-check
/**
 * `npm run dev [-- <entry>]`: starts the dev build and the first server process
 * (scripts/dev-start.mjs), then loads the TypeScript loader and the loop itself (scripts/dev.ts),
 * which takes them over. They run while those load: on a fresh clone they are the way to the first
 * answer.
 */
import { startEarly } from './dev-start.mjs';

startEarly();
// tsx's loader registers itself on import (as `node --import tsx` does); it declares no types.
await import(/** @type {string} */ ('tsx'));
await import(/** @type {string} */ ('./dev.ts'));
