/** Global settings of the library (reference: `OAuth2.configure`). */
export interface OAuth2Config {
  /** When false, `AccessToken.fromHash` warns if the hash holds more than one token key. Default true. */
  silenceExtraTokensWarning: boolean;
  /** When false, `AccessToken.fromHash` warns if the hash holds no token key. Default true. */
  silenceNoTokensWarning: boolean;
}

const config: OAuth2Config = { silenceExtraTokensWarning: true, silenceNoTokensWarning: true };

/** Changes the global settings; returns the settings now in effect. */
export function configure(settings: Partial<OAuth2Config>): Readonly<OAuth2Config> {
  for (const key of ['silenceExtraTokensWarning', 'silenceNoTokensWarning'] as const) {
    const value = settings[key];
    if (value !== undefined) config[key] = value;
  }
  return { ...config };
}

export function currentConfig(): Readonly<OAuth2Config> {
  return config;
}
