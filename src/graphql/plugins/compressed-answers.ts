import type { Plugin } from 'graphql-yoga';
import { isCompressibleType, MIN_COMPRESSED_BYTES, type Compression } from '../../lib/compression.js';

/**
 * Compression of the graph's answers: compressed at the fast level (compression.ts) when the request
 * accepts a coding and the answer is negotiated (1 KiB or more of a compressible type), with
 * `Vary: Accept-Encoding` then.
 *
 * Left as they are: streamed answers (server-sent events, multipart: not a compressible type, and
 * never read whole here), answers that already chose their coding (GraphiQL's files and the response
 * cache's kept answers: Content-Encoding, or a Vary naming Accept-Encoding), HEAD and bodiless
 * answers. Registered last, so that it compresses what every other plugin answered.
 */
export function useCompressedAnswers(compression: Compression): Plugin {
  return {
    onResponse(payload) {
      const { request, response, fetchAPI } = payload;
      if (request.method === 'HEAD' || response.body === null || response.status < 200 || response.status === 204 || response.status === 304) return undefined;
      const { headers } = response;
      const contentType = headers.get('content-type');
      if (headers.has('content-encoding') || /accept-encoding/i.test(headers.get('vary') ?? '')) return undefined;
      if (compression.codings.length === 0 || !isCompressibleType(contentType)) return undefined;
      const declaredLength = headers.get('content-length');
      if (declaredLength !== null && Number(declaredLength) < MIN_COMPRESSED_BYTES) return undefined;
      const coding = compression.codingOf(request.headers.get('accept-encoding'), 'answer');
      // An answer of known length in identity is left as it is, its Vary told: nothing is read or copied.
      if (coding === 'identity' && declaredLength !== null) {
        headers.append('vary', 'Accept-Encoding');
        return undefined;
      }
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
  };
}
