/**
 * Resolvers of the Star Wars graph, typed by the generated `Resolvers`: every field of every type is
 * required there, so a field added to the SDL without a resolver fails `npm run typecheck`. A field
 * that answers its record's property of the same name is `property('name')` (the server then reads
 * the property without a resolver call; src/graphql/schema/property-resolvers.ts).
 */
import type { Episode, Resolvers } from '../../generated/starwars/resolvers-types.js';
import { property } from '../../src/graphql/schema/property-resolvers.js';
import type { StarWarsContext } from './context.js';
import type { CharacterRecord } from './data.js';

/** Fields every character resolves the same way, whatever its concrete type. */
const characterFields = {
  id: property('id'),
  name: property('name'),
  /** Friends are stored as ids; an id with no record resolves to null rather than failing. */
  friends: (character: CharacterRecord, _args: unknown, context: StarWarsContext): Array<CharacterRecord | null> =>
    character.friends.map((id) => context.starWars.character(id)),
  appearsIn: (character: CharacterRecord): Episode[] => [...character.appearsIn],
};

export const resolvers: Resolvers = {
  Query: {
    hero: (_root, { episode }, context) => context.starWars.hero(episode),
    human: (_root, { id }, context) => context.starWars.human(id),
    droid: (_root, { id }, context) => context.starWars.droid(id),
  },
  Character: {
    __resolveType: (character) => character.kind,
  },
  Human: {
    ...characterFields,
    homePlanet: property('homePlanet'),
  },
  Droid: {
    ...characterFields,
    primaryFunction: property('primaryFunction'),
  },
};
