/**
 * Waiting for an event a test cannot subscribe to (a count in another server, a line in a child's
 * output, a key in Redis): `probe` is called every `intervalMs` until it gives a value other than
 * `undefined` or `false`, which is returned. The deadline only bounds a failure: a passing test
 * goes on as soon as the event happens, so its result does not depend on the machine's load.
 *
 *   await eventually('the token request at the sandbox', async () => (await sandboxRequests(sandbox)).token > before);
 *   const url = await eventually('the listening line', () => /listening on (\S+)/.exec(output())?.[1]);
 *
 * A probe that throws ends the wait with its error (a child that exited, an answer that violates
 * the contract): only `undefined` and `false` mean "not yet".
 */
export interface EventuallyOptions {
  /** How long before the wait fails (default 10 s: generous, the machine is shared). */
  timeoutMs?: number;
  /** Pause between two probes (default 20 ms). */
  intervalMs?: number;
  /** Appended to the failure message: what the reader needs to see why (a child's output, the last value read). */
  detail?: () => string;
}

export const EVENTUALLY_TIMEOUT_MS = 10_000;

export async function eventually<T>(what: string, probe: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<Exclude<T, undefined | false>> {
  const timeoutMs = options.timeoutMs ?? EVENTUALLY_TIMEOUT_MS;
  const giveUpAt = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
    if (performance.now() > giveUpAt) {
      const detail = options.detail?.();
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail === undefined ? '' : `:\n${detail}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}
