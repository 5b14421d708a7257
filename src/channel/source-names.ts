/** The upstream sources whose snapshots the service keeps (and shares between replicas). */
export type SourceName = 'membership' | 'video' | 'stats';
export const SOURCE_NAMES: readonly SourceName[] = ['membership', 'video', 'stats'];
