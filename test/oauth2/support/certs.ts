import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/**
 * A throwaway CA, a server certificate for 127.0.0.1 and a client certificate (CN=oauth2-test-client),
 * generated with the openssl CLI into a temporary directory.
 */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'oauth2-pki-'));
  const openssl = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  };
  try {
    openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=oauth2-test-ca']);
    for (const [name, subject, ext] of [
      ['server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1'],
      ['client', '/CN=oauth2-test-client', 'extendedKeyUsage=clientAuth'],
    ] as const) {
      writeFileSync(join(dir, `${name}.ext`), `${ext}\n`);
      openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
      openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '1', '-extfile', `${name}.ext`]);
    }
    const read = (file: string): string => readFileSync(join(dir, file), 'utf8');
    return { caCert: read('ca.crt'), serverCert: read('server.crt'), serverKey: read('server.key'), clientCert: read('client.crt'), clientKey: read('client.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
