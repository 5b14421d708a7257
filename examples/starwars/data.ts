/**
 * The canonical Star Wars data of the query-language reference document, as plain records.
 * Friends are ids, not objects: resolvers look them up, which is what makes the graph a graph.
 */
import type { Episode } from '../../generated/starwars/resolvers-types.js';

interface CharacterFields {
  id: string;
  name: string;
  friends: readonly string[];
  appearsIn: readonly Episode[];
}

export interface HumanRecord extends CharacterFields {
  kind: 'Human';
  homePlanet: string | null;
}

export interface DroidRecord extends CharacterFields {
  kind: 'Droid';
  primaryFunction: string;
}

/** What a field typed `Character` (the interface) resolves to; `kind` is the concrete type. */
export type CharacterRecord = HumanRecord | DroidRecord;

const allEpisodes: readonly Episode[] = ['NEW_HOPE', 'EMPIRE', 'JEDI'];

export const humans: readonly HumanRecord[] = [
  { kind: 'Human', id: '1000', name: 'Luke Skywalker', homePlanet: 'Tatooine', friends: ['1002', '1003', '2000', '2001'], appearsIn: allEpisodes },
  { kind: 'Human', id: '1001', name: 'Darth Vader', homePlanet: 'Tatooine', friends: ['1004'], appearsIn: allEpisodes },
  { kind: 'Human', id: '1002', name: 'Han Solo', homePlanet: null, friends: ['1000', '1003', '2001'], appearsIn: allEpisodes },
  { kind: 'Human', id: '1003', name: 'Leia Organa', homePlanet: 'Alderaan', friends: ['1000', '1002', '2000', '2001'], appearsIn: allEpisodes },
  { kind: 'Human', id: '1004', name: 'Wilhuff Tarkin', homePlanet: null, friends: ['1001'], appearsIn: ['NEW_HOPE'] },
];

export const droids: readonly DroidRecord[] = [
  { kind: 'Droid', id: '2000', name: 'C-3PO', primaryFunction: 'Protocol', friends: ['1000', '1002', '1003', '2001'], appearsIn: allEpisodes },
  { kind: 'Droid', id: '2001', name: 'R2-D2', primaryFunction: 'Astromech', friends: ['1000', '1002', '1003'], appearsIn: allEpisodes },
];

/** Luke is the hero of The Empire Strikes Back; R2-D2 of every other episode and of the saga. */
export const heroIds: { readonly byEpisode: Partial<Record<Episode, string>>; readonly saga: string } = {
  byEpisode: { EMPIRE: '1000' },
  saga: '2001',
};
