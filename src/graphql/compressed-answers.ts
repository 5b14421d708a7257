import type { Plugin } from 'graphql-yoga';
import { isCompressibleType, MIN_COMPRESSED_BYTES, type Compression } from '../lib/compression.js';
import { skippableByRepeats } from './skippable-plugins.js';

/**
 * Compression of the answers yoga writes to the client itself: those no layer in front of it reads
 * (graph-answer.ts), e.g. its errors for a request the response cache does not take, a GET when the
 * cache is off, GraphiQL's page. They are compressed at the fast level (compression.ts) when the
 * request accepts a coding and the answer is negotiated, with `Vary: Accept-Encoding` then.
 *
 * Left as they are: answers read through yoga's fetch API by the layers in front of it (their server
 * context carries no node request: those layers compress what they write), streamed answers (server-
 * sent events, multipart: not a compressible type, and never read whole here), answers that already
 * chose their coding (GraphiQL's files: Content-Encoding, or a Vary naming Accept-Encoding), HEAD and
 * bodiless answers. Prepared and replayed answers are compressed by the layer that writes them, so
 * they may skip it (skippable-plugins.ts).
 */
export function useCompressedAnswers(compression: Compression): Plugin {
  return skippableByRepeats({
    onResponse(payload) {
      const { request, response, serverContext, fetchAPI } = payload;
      // node:http requests (yoga's requestListener) carry their node request as `req` (@whatwg-node/server).
      if ((serverContext as { req?: unknown }).req === undefined) return undefined;
      if (request.method === 'HEAD' || response.body === null || response.status < 200 || response.status === 204 || response.status === 304) return undefined;
      const { headers } = response;
      const contentType = headers.get('content-type');
      if (headers.has('content-encoding') || /accept-encoding/i.test(headers.get('vary') ?? '')) return undefined;
      if (compression.codings.length === 0 || !isCompressibleType(contentType)) return undefined;
      const declaredLength = headers.get('content-length');
      if (declaredLength !== null && Number(declaredLength) < MIN_COMPRESSED_BYTES) return undefined;
      const coding = compression.codingOf(request.headers.get('accept-encoding'), 'answer');
      return response.arrayBuffer().then(async (read) => {
        const bytes = Buffer.from(read);
        // zlib's and Buffer.from's bytes live in an ArrayBuffer, never a SharedArrayBuffer.
        const answer = (body: Buffer, fields: Headers): void =>
          payload.setResponse(new fetchAPI.Response(body as Buffer<ArrayBuffer>, { status: response.status, statusText: response.statusText, headers: fields }));
        if (!compression.negotiates(bytes.length, contentType)) return answer(bytes, headers);
        const negotiated = new fetchAPI.Headers(headers);
        negotiated.append('vary', 'Accept-Encoding');
        negotiated.set('content-length', String(bytes.length));
        if (coding === 'identity') return answer(bytes, negotiated);
        let compressed: Buffer;
        try {
          compressed = await compression.compress(coding, bytes, 'answer');
        } catch {
          return answer(bytes, negotiated);
        }
        if (compressed.length >= bytes.length) return answer(bytes, negotiated);
        negotiated.set('content-encoding', coding);
        negotiated.set('content-length', String(compressed.length));
        return answer(compressed, negotiated);
      });
    },
  });
}
