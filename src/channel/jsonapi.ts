/**
 * JSON:API 1.0 documents (https://jsonapi.org/format/1.0/) as the membership platform sends them,
 * validated with zod, and lookups of included resources by (type, id).
 */
import { z } from 'zod';

const resourceIdentifierSchema = z.object({ type: z.string().min(1), id: z.string().min(1) });
export type ResourceIdentifier = z.infer<typeof resourceIdentifierSchema>;

const relationshipSchema = z.looseObject({
  data: z.union([resourceIdentifierSchema, z.array(resourceIdentifierSchema), z.null()]).optional(),
});

const resourceObjectSchema = z.looseObject({
  type: z.string().min(1),
  id: z.string().min(1),
  attributes: z.record(z.string(), z.unknown()).optional(),
  relationships: z.record(z.string(), relationshipSchema).optional(),
});
export type ResourceObject = z.infer<typeof resourceObjectSchema>;

/** A document whose primary data is a list (a collection page). */
export const collectionDocumentSchema = z.looseObject({
  data: z.array(resourceObjectSchema),
  included: z.array(resourceObjectSchema).optional(),
  links: z.looseObject({ next: z.string().nullable().optional() }).optional(),
});

export type CollectionDocument = z.infer<typeof collectionDocumentSchema>;

/** A document whose primary data is one resource. */
export const singleDocumentSchema = z.looseObject({
  data: resourceObjectSchema,
  included: z.array(resourceObjectSchema).optional(),
});

/** Included (and primary) resources by type and id. */
export class ResourceIndex {
  readonly #byKey = new Map<string, ResourceObject>();

  add(resources: readonly ResourceObject[] | undefined): void {
    for (const resource of resources ?? []) this.#byKey.set(`${resource.type}\u0000${resource.id}`, resource);
  }

  get(type: string, id: string): ResourceObject | undefined {
    return this.#byKey.get(`${type}\u0000${id}`);
  }

  ofType(type: string): ResourceObject[] {
    return [...this.#byKey.values()].filter((resource) => resource.type === type);
  }
}

/** The identifiers a to-many relationship links to ([] when absent). */
export function relatedMany(resource: ResourceObject, name: string): ResourceIdentifier[] {
  const data = resource.relationships?.[name]?.data;
  if (data === undefined || data === null) return [];
  return Array.isArray(data) ? data : [data];
}

/** The identifier a to-one relationship links to (undefined when absent or null). */
export function relatedOne(resource: ResourceObject, name: string): ResourceIdentifier | undefined {
  const data = resource.relationships?.[name]?.data;
  return data === undefined || data === null || Array.isArray(data) ? undefined : data;
}
