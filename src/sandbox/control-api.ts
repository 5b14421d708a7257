/** The sandbox's control endpoints under /__sandbox: faults, token expiry, webhooks, counters. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { faultRequestSchema } from './faults.js';
import { parseJson, readBody, sendJson, sendProblem } from './http-kit.js';
import type { SandboxState } from './state.js';
import { WebhookRequestError, sendWebhook, webhookRequestSchema } from './webhook-sender.js';

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ');
}

async function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const body = parseJson(await readBody(req));
  if (body === undefined) sendProblem(res, 400, 'Bad Request', 'the body must be JSON');
  return body;
}

/** Handles /__sandbox/* paths; returns false for any other path. */
export async function handleControlApi(state: SandboxState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if (!url.pathname.startsWith('/__sandbox/')) return false;
  const route = `${req.method ?? ''} ${url.pathname}`;
  switch (route) {
    case 'GET /__sandbox/faults':
      sendJson(res, 200, { faults: state.faults.list() });
      return true;
    case 'POST /__sandbox/faults': {
      const body = await readJsonBody(req, res);
      if (body === undefined) return true;
      const parsed = faultRequestSchema.safeParse(body);
      if (!parsed.success) {
        sendProblem(res, 400, 'Bad Request', describeIssues(parsed.error));
        return true;
      }
      state.faults.set(parsed.data);
      sendJson(res, 200, { faults: state.faults.list() });
      return true;
    }
    case 'DELETE /__sandbox/faults':
      state.faults.clear();
      sendJson(res, 200, { faults: {} });
      return true;
    case 'POST /__sandbox/expire-tokens':
      state.tokens.expireAll();
      sendJson(res, 200, { expired: true });
      return true;
    case 'GET /__sandbox/stats':
      sendJson(res, 200, { requests: state.requests });
      return true;
    case 'POST /__sandbox/webhook': {
      const body = await readJsonBody(req, res);
      if (body === undefined) return true;
      const parsed = webhookRequestSchema.safeParse(body);
      if (!parsed.success) {
        sendProblem(res, 400, 'Bad Request', describeIssues(parsed.error));
        return true;
      }
      try {
        const { status, member } = await sendWebhook(state, parsed.data);
        sendJson(res, 200, { delivered: true, status, event: parsed.data.event, memberId: member.id, patronStatus: member.patronStatus });
      } catch (error) {
        if (error instanceof WebhookRequestError) sendProblem(res, error.status, error.status === 404 ? 'Not Found' : 'Bad Request', error.message);
        else sendProblem(res, 502, 'Bad Gateway', `the webhook receiver could not be reached: ${(error as Error).message}`);
      }
      return true;
    }
    default:
      sendProblem(res, 404, 'Not Found', `no sandbox control endpoint ${route}`);
      return true;
  }
}
