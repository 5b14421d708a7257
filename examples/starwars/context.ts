/**
 * Per-request context of the Star Wars graph: a data access object over the canonical records.
 * It counts every lookup it serves, so tests can prove a rejected document never reached a resolver.
 */
import type { Episode } from '../../generated/starwars/resolvers-types.js';
import { droids, heroIds, humans, type CharacterRecord, type DroidRecord, type HumanRecord } from './data.js';

export interface StarWarsData {
  human(id: string): HumanRecord | null;
  droid(id: string): DroidRecord | null;
  character(id: string): CharacterRecord | null;
  /** The hero of `episode`, or of the saga when no episode is given. */
  hero(episode: Episode | null | undefined): CharacterRecord;
  /** How many lookups this object has served since it was created. */
  readonly lookups: number;
}

/** A type alias (not an interface) so that it satisfies yoga's `Record<string, unknown>` context bound. */
export type StarWarsContext = {
  starWars: StarWarsData;
};

/** Builds a data access object over the canonical data (one per server: the data is read-only). */
export function createStarWarsData(): StarWarsData {
  const humansById = new Map(humans.map((human) => [human.id, human]));
  const droidsById = new Map(droids.map((droid) => [droid.id, droid]));
  let lookups = 0;
  const character = (id: string): CharacterRecord | null => {
    lookups += 1;
    return humansById.get(id) ?? droidsById.get(id) ?? null;
  };
  return {
    human(id) {
      lookups += 1;
      return humansById.get(id) ?? null;
    },
    droid(id) {
      lookups += 1;
      return droidsById.get(id) ?? null;
    },
    character,
    hero(episode) {
      const id = (episode ? heroIds.byEpisode[episode] : undefined) ?? heroIds.saga;
      const hero = character(id);
      if (!hero) throw new Error(`hero ${id} is missing from the data`);
      return hero;
    },
    get lookups() {
      return lookups;
    },
  };
}
