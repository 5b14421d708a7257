/**
 * `@channel-graph/client/persisted-documents`: the persisted-documents manifest of the shipped
 * operations (document id `sha256:<hex>` → document text), as the codegen client preset writes it.
 * The server trusts exactly these documents; a gateway or a CDN can be given the same list.
 */
import manifest from '../../../generated/client/persisted-documents.json' with { type: 'json' };

/** Document id → document text. */
export type PersistedDocuments = Readonly<Record<string, string>>;

export const persistedDocuments: PersistedDocuments = manifest;
