/**
 * A promise and the function that settles it, for a test that decides when something happens: a
 * fake peer answers when the test says so, or tells the test that a call has reached it
 * (`Promise.withResolvers`, which Node 20 lacks).
 */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  let reject: (reason: unknown) => void = () => undefined;
  const promise = new Promise<T>((settle, fail) => {
    resolve = settle;
    reject = fail;
  });
  return { promise, resolve, reject };
}
