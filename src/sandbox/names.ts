/** Name material for the generated people (a mix of scripts and accents on purpose). */
export const FIRST_NAMES = [
  'Ada', 'Bruno', 'Chloé', 'Dmitri', 'Elif', 'Farah', 'Gustav', 'Hana', 'Ines', 'José', 'Kwame', 'Lena',
  'Mateo', 'Nadia', 'Oskar', 'Priya', 'Quentin', 'Rosa', 'Søren', 'Tomasz', 'Uma', 'Valentina', 'Wei',
  'Ximena', 'Yusuf', 'Zoë', 'Aiko', 'Björn', 'Camille', 'Declan', 'Emeka', 'Freya',
] as const;

export const LAST_NAMES = [
  'Okafor', 'Lindqvist', 'Moreau', 'Nakamura', 'Petrov', 'García', 'Schmidt', 'Kowalski', 'Haddad',
  'Rossi', 'van Dijk', "O'Brien", 'Müller', 'Silva', 'Chen', 'Novak', 'Ivanova', 'Dubois',
] as const;

/** Words gamers put in channel titles. */
export const HANDLE_WORDS = ['Pixel', 'Nova', 'Turbo', 'Lumen', 'Echo', 'Orbit', 'Comet', 'Vortex'] as const;

/** Decorations people put around channel titles. */
export const TITLE_DECORATIONS = ['🎮', '✨', '🇧🇷', '❤️', '👩🏽‍💻'] as const;
