import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One webhook POST as the receiver got it: headers and the raw body bytes (signatures cover those). */
export interface WebhookDelivery {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

export interface WebhookReceiver {
  /** Where to point the sandbox's webhook sender. */
  url: string;
  /** Every delivery so far, oldest first. */
  deliveries: WebhookDelivery[];
  close(): Promise<void>;
}

/** A real HTTP endpoint on 127.0.0.1 that records webhook deliveries and answers `status`. */
export async function startWebhookReceiver(status = 204): Promise<WebhookReceiver> {
  const deliveries: WebhookDelivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/membership/webhook`,
    deliveries,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
