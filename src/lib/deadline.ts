/**
 * A deadline for one outgoing exchange (the video platform's requests) that really fires.
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])` is not one: on Node 20 the combined signal
 * can lose its timeout once the garbage collector has run (the timeout signal is only weakly held).
 * Here a plain timer holds the AbortController, so the abort happens on time whatever is collected.
 */

export interface DeadlineOptions {
  /** Milliseconds from the start of the exchange to its abort. */
  timeoutMs: number;
  /** The caller's signal: aborting it aborts the exchange at once. */
  signal?: AbortSignal | undefined;
  /** The error the exchange rejects with when the deadline passes. */
  timeoutError: () => Error;
  /** The error the exchange rejects with when the caller's signal aborts (its reason is given). */
  abortError: (reason: unknown) => Error;
}

/**
 * Runs `exchange` with a signal that aborts at the deadline or with the caller's signal. The call
 * settles at that moment even if `exchange` does not react to the abort (a body read that ignores
 * it), rejecting with `timeoutError()` or `abortError(reason)`; so the deadline covers everything
 * `exchange` awaits — connect, headers and body. Any other failure of `exchange` is passed through.
 * The timer and the listener on the caller's signal are removed when the call settles.
 */
export async function withDeadline<T>(exchange: (signal: AbortSignal) => Promise<T>, options: DeadlineOptions): Promise<T> {
  const { signal: caller, timeoutMs } = options;
  const controller = new AbortController();
  const abortedByCaller = (): void => controller.abort(options.abortError(caller?.reason));
  const timer = setTimeout(() => controller.abort(options.timeoutError()), timeoutMs);
  if (caller?.aborted === true) abortedByCaller();
  else caller?.addEventListener('abort', abortedByCaller, { once: true });
  const aborted = new Promise<never>((_resolve, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason as Error);
    else controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true });
  });
  try {
    return await Promise.race([exchange(controller.signal), aborted]);
  } catch (error) {
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', abortedByCaller);
  }
}
