/**
 * JSON:API 1.0 documents (https://jsonapi.org/format/1.0/) as the membership platform sends them,
 * typed from its contract (openapi/upstreams/membership-v2.yaml): lookups of included resources by
 * (type, id) and of the resources a relationship links to.
 */
import type { components } from '../../generated/upstreams/membership-v2.js';

export type ResourceObject = components['schemas']['ResourceObject'];
export type ResourceIdentifier = components['schemas']['ResourceIdentifier'];

/** Included (and primary) resources by type and id. */
export class ResourceIndex {
  readonly #byKey = new Map<string, ResourceObject>();

  add(resources: readonly ResourceObject[] | undefined): void {
    for (const resource of resources ?? []) this.#byKey.set(`${resource.type}\u0000${resource.id}`, resource);
  }

  get(type: string, id: string): ResourceObject | undefined {
    return this.#byKey.get(`${type}\u0000${id}`);
  }
}

type Relationship = components['schemas']['Relationship'];

/** The identifiers a to-many relationship links to ([] when absent). */
export function relatedMany(relationship: Relationship | undefined): ResourceIdentifier[] {
  const data = relationship?.data;
  if (data === undefined || data === null) return [];
  return Array.isArray(data) ? data : [data];
}

/** The identifier a to-one relationship links to (undefined when absent or null). */
export function relatedOne(relationship: Relationship | undefined): ResourceIdentifier | undefined {
  const data = relationship?.data;
  return data === undefined || data === null || Array.isArray(data) ? undefined : data;
}
