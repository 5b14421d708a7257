/** The sandbox's control endpoints under /__sandbox: faults, token expiry, webhooks, counters. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { faultRequestSchema } from './faults.js';
import { problem, sendProblem } from '../lib/problem.js';
import { parseJson, readBody, sendJson } from './http-kit.js';
import type { SandboxState } from './state.js';
import { WebhookRequestError, sendWebhook, webhookRequestSchema } from './webhook-sender.js';

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ');
}

/** The JSON body checked against `schema`; undefined once a 400 has answered a bad one. */
async function readValidBody<T>(req: IncomingMessage, res: ServerResponse, schema: z.ZodType<T>): Promise<T | undefined> {
  const body = parseJson(await readBody(req));
  if (body === undefined) {
    sendProblem(res, problem(400, 'the body must be JSON'));
    return undefined;
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    sendProblem(res, problem(400, describeIssues(parsed.error)));
    return undefined;
  }
  return parsed.data;
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
      const faults = await readValidBody(req, res, faultRequestSchema);
      if (faults === undefined) return true;
      state.faults.set(faults);
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
      const webhook = await readValidBody(req, res, webhookRequestSchema);
      if (webhook === undefined) return true;
      try {
        const { status, member } = await sendWebhook(state, webhook);
        sendJson(res, 200, { delivered: true, status, event: webhook.event, memberId: member.id, patronStatus: member.patronStatus });
      } catch (error) {
        if (error instanceof WebhookRequestError) sendProblem(res, problem(error.status, error.message));
        else sendProblem(res, problem(502, `the webhook receiver could not be reached: ${(error as Error).message}`));
      }
      return true;
    }
    default:
      sendProblem(res, problem(404, `no sandbox control endpoint ${route}`));
      return true;
  }
}
