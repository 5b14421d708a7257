/**
 * The hash-like result of parsing a form or JSON object body (reference: `parsed` rules 1, 4, 6).
 * Keys are snake_cased (recursively, through nested objects and arrays); values are read as plain
 * properties (`parsed.access_token`, `parsed['access_token']`).
 *
 * Subclass it and pass the subclass as `hashClass` to customise parsing: override `convertValue`
 * (called for every value with its key) or `convertHash` (called once per built hash). `dump` and
 * `load` serialise a hash to JSON and back into the same class.
 */
export class SnakyHash {
  [key: string]: unknown;

  /** Builds an instance from a parsed object, snake_casing its keys. */
  static build<T extends typeof SnakyHash>(this: T, source: Readonly<Record<string, unknown>>): InstanceType<T> {
    const hash: SnakyHash = new this();
    for (const [key, value] of Object.entries(source)) {
      const snakeKey = snakeCase(key);
      hash[snakeKey] = this.convertValue(this.convert(value), snakeKey);
    }
    return this.convertHash(hash) as InstanceType<T>;
  }

  /** Extension hook for values: receives each (already converted) value and its snake_cased key. */
  static convertValue(value: unknown, _key: string): unknown {
    return value;
  }

  /** Extension hook for whole hashes: receives each built hash, returns the hash to use. */
  static convertHash(hash: SnakyHash): SnakyHash {
    return hash;
  }

  /** Serialises a hash (reference: "dump and load ability for serialization"). */
  static dump(hash: SnakyHash): string {
    return JSON.stringify(hash);
  }

  /** Rebuilds a hash of this class from `dump` output. */
  static load<T extends typeof SnakyHash>(this: T, serialized: string): InstanceType<T> {
    const value: unknown = JSON.parse(serialized);
    if (!isPlainObject(value)) throw new TypeError(`${this.name}.load expects a serialized object`);
    return this.build(value);
  }

  /** Converts a parsed JSON value: objects (also inside arrays) become instances of this class. */
  static convert(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.convert(item));
    if (isPlainObject(value)) return this.build(value);
    return value;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `accessToken` → `access_token`, `HTTPStatus` → `http_status`, `error-uri` → `error_uri`. */
export function snakeCase(key: string): string {
  return key
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
}
