/**
 * members.json: the values of the video platform's channel-dashboard request, copied by the operator
 * from the dashboard's network traffic (memberships page). Validated at start-up so that a missing or
 * malformed value stops the process with the field and what is expected, not with an upstream 401
 * minutes later.
 */
import { z } from 'zod';
import { isFieldName, isFieldValue } from '../lib/http-field.js';

/** members.example.json marks every value the operator must replace with this word. */
const PLACEHOLDER_MARK = 'REPLACE_ME';

const copiedValue = (what: string) =>
  z
    .string({ error: `${what} (a string)` })
    .min(1, { error: `${what} (a non-empty string)` })
    .refine((value) => !value.includes(PLACEHOLDER_MARK), { error: `${what}; it is still the placeholder from members.example.json` });

const clientContextSchema = z.looseObject({
  clientName: z.union([z.number().int(), z.string().min(1)], { error: 'the client name from the dashboard request (e.g. 62)' }),
  clientVersion: copiedValue('the client version from the dashboard request'),
});

export const membersConfigSchema = z.strictObject({
  /** The `key` query parameter of the dashboard's API requests. */
  key: copiedValue('the key query parameter of the dashboard request'),
  /** The creator's own channel id. */
  externalChannelId: z
    .string({ error: 'the channel id (UC followed by 22 characters)' })
    .regex(/^UC[A-Za-z0-9_-]{22}$/, { error: 'the channel id (UC followed by 22 characters)' }),
  /** The request body's `context` object (client name and version, user, request flags…), sent as is. */
  context: z.looseObject({
    client: clientContextSchema,
  }, { error: 'the context object of the dashboard request body' }),
  /** Request headers of the dashboard request; the platform authenticates the cookie and authorization. */
  headers: z
    .record(z.string(), z.string({ error: 'a header value (a string)' }), { error: 'an object of request headers' })
    .superRefine((headers, ctx) => {
      const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
      for (const required of ['authorization', 'cookie']) {
        if (!names.has(required)) ctx.addIssue({ code: 'custom', path: [required], message: `the ${required} header of the dashboard request` });
      }
      for (const [name, value] of Object.entries(headers)) {
        if (!isFieldName(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'an HTTP header name (RFC 9110 token characters)' });
        // A CR or LF would let the value add headers of its own upstream (header injection).
        else if (!isFieldValue(value)) ctx.addIssue({ code: 'custom', path: [name], message: 'an HTTP header value (RFC 9110 field value: no CR, LF or other control character, no leading or trailing space)' });
        if (value.includes(PLACEHOLDER_MARK)) ctx.addIssue({ code: 'custom', path: [name], message: 'the header value; it is still the placeholder from members.example.json' });
      }
    }),
  /** The page the dashboard request came from; sent as the Referer header. */
  referrer: z
    .url({ protocol: /^https?$/, error: 'the referrer URL of the dashboard request (http or https)' })
    .refine((value) => !value.includes(PLACEHOLDER_MARK), { error: 'the referrer URL of the dashboard request; it is still the placeholder from members.example.json' }),
});

export type MembersConfig = z.infer<typeof membersConfigSchema>;
