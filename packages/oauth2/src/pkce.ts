import { createHash, randomBytes } from 'node:crypto';

export interface Pkce {
  verifier: string;
  challenge: string;
  method: 'S256';
}

/**
 * Proof Key for Code Exchange (RFC 7636): a high-entropy `code_verifier` (§4.1: 43–128 characters
 * of the unreserved set; 32 random bytes base64url-encoded give 43) and its S256 `code_challenge`
 * (§4.2: BASE64URL(SHA256(ASCII(code_verifier)))).
 */
export function createPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  return { verifier, challenge, method: 'S256' };
}
