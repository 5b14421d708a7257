/**
 * What `NODE_ENV` chooses, decided here and nowhere else:
 *
 * | `NODE_ENV` | the graph | no membership credentials |
 * |---|---|---|
 * | `development` (`npm run dev`) | development mode: error details, GraphiQL | the sandbox |
 * | unset, `test`, any other value (`npm ci && npm start`) | production | the sandbox, announced everywhere an operator looks |
 * | `production` | production | refused at start (exit 78) unless `SANDBOX=true` |
 *
 * Production behaviour needs no setting: it is what `npm start` does as it comes. `NODE_ENV=production`
 * says more — this deployment serves a real channel — so a secret that failed to mount stops the
 * start instead of serving the sandbox's made-up supporters with a ready `/readyz`.
 */

/** `NODE_ENV=development`: the graph's development mode. Anything else is production behaviour. */
export function isDevelopment(nodeEnv: string | undefined): boolean {
  return nodeEnv === 'development';
}

/** Whether no membership credentials means the sandbox (true), or a refusal to start unless `SANDBOX=true` (false). */
export function sandboxWithoutCredentials(nodeEnv: string | undefined): boolean {
  return nodeEnv !== 'production';
}
