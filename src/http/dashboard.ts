/**
 * `/dashboard`: the channel over time on one page — members and monthly amount per platform, the
 * subscribers, the goal bars and the latest changes. Rendered on the server as HTML with SVG charts
 * (no script, no chart library, nothing fetched by the browser), from the graph's own typed
 * operations (@channel-graph/client's ChannelHistory, ChannelGoals, SupporterChanges) sent to this
 * service's /graphql. Each plotted point carries its time and value (`data-at`, `data-value`).
 *
 * Served in development; in production only with DASHBOARD=true. Its data is the REST data's (public).
 * `?days=` (1-366, default 7) is the range: by hour up to 14 days, by day beyond.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ChannelGoalsDocument, ChannelHistoryDocument, GraphQLRequestError, request, SupporterChangesDocument } from '@channel-graph/client/graphql';
import type { Compression } from '../lib/compression.js';
import { problem, sendProblem } from '../lib/problem.js';
import { TaggedBody } from '../lib/tagged-body.js';

export const DASHBOARD_PATH = '/dashboard';

/** No script at all; styles only inline (the page's own); nothing loaded from anywhere. */
const HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'access-control-allow-origin': '*',
} as const;

const WIDTH = 640;
const HEIGHT = 180;
const PAD = { left: 56, right: 12, top: 12, bottom: 24 };
const COLORS = ['#c0392b', '#2471a3', '#7d3c98'];

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
const cents = (value: number): string => `$${(value / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

interface Series {
  name: string;
  points: Array<{ at: string; value: number }>;
}

/** A line chart as SVG: one polyline and one circle per point for each series; axes labelled with the range. */
export function lineChart(id: string, title: string, series: readonly Series[], format: (value: number) => string): string {
  const all = series.flatMap((each) => each.points);
  if (all.length === 0) return `<section><h2>${escapeHtml(title)}</h2><p class="empty">No history recorded in this range yet.</p></section>`;
  const times = all.map((point) => Date.parse(point.at));
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const values = all.map((point) => point.value);
  const [v0, v1] = [Math.min(0, ...values), Math.max(...values, 1)];
  const x = (at: string): number => PAD.left + (t1 === t0 ? 0.5 : (Date.parse(at) - t0) / (t1 - t0)) * (WIDTH - PAD.left - PAD.right);
  const y = (value: number): number => HEIGHT - PAD.bottom - ((value - v0) / (v1 - v0)) * (HEIGHT - PAD.top - PAD.bottom);
  const lines = series.map((each, index) => {
    const color = COLORS[index % COLORS.length] as string;
    const dots = each.points.map((point) => `<circle cx="${x(point.at).toFixed(1)}" cy="${y(point.value).toFixed(1)}" r="2.5" fill="${color}" data-series="${escapeHtml(each.name)}" data-at="${point.at}" data-value="${point.value}"><title>${escapeHtml(each.name)} ${escapeHtml(point.at)}: ${escapeHtml(format(point.value))}</title></circle>`).join('');
    const path = each.points.map((point) => `${x(point.at).toFixed(1)},${y(point.value).toFixed(1)}`).join(' ');
    return `<polyline fill="none" stroke="${color}" stroke-width="2" points="${path}"/>${dots}`;
  });
  const legend = series.map((each, index) => `<span style="color:${COLORS[index % COLORS.length] as string}">● ${escapeHtml(each.name)}</span>`).join(' ');
  return `<section><h2>${escapeHtml(title)}</h2><p class="legend">${legend}</p>
<svg id="${id}" role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}">
<line x1="${PAD.left}" y1="${HEIGHT - PAD.bottom}" x2="${WIDTH - PAD.right}" y2="${HEIGHT - PAD.bottom}" stroke="#999"/>
<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${HEIGHT - PAD.bottom}" stroke="#999"/>
<text x="${PAD.left - 4}" y="${PAD.top + 8}" text-anchor="end" font-size="10">${escapeHtml(format(v1))}</text>
<text x="${PAD.left - 4}" y="${HEIGHT - PAD.bottom}" text-anchor="end" font-size="10">${escapeHtml(format(v0))}</text>
<text x="${PAD.left}" y="${HEIGHT - 6}" font-size="10">${new Date(t0).toISOString().slice(0, 16).replace('T', ' ')}</text>
<text x="${WIDTH - PAD.right}" y="${HEIGHT - 6}" text-anchor="end" font-size="10">${new Date(t1).toISOString().slice(0, 16).replace('T', ' ')}</text>
${lines.join('\n')}
</svg></section>`;
}

export interface DashboardOptions {
  /** The service's own /graphql (its base URL is known once it listens). */
  graphUrl: () => string;
  compression?: Compression | undefined;
}

export type DashboardHandler = ((request: IncomingMessage, response: ServerResponse) => boolean) & { readonly paths: ReadonlySet<string> };

function readDays(url: URL): number {
  const text = url.searchParams.get('days');
  if (text === null) return 7;
  if (!/^\d{1,3}$/.test(text) || Number(text) < 1 || Number(text) > 366) throw new RangeError(`query parameter "days" must be a whole number from 1 to 366, got "${text.slice(0, 32)}"`);
  return Number(text);
}

async function render(graphUrl: string, days: number): Promise<string> {
  const now = Date.now();
  const from = new Date(now - days * 86_400_000).toISOString();
  const interval = days <= 14 ? 'HOUR' : 'DAY';
  const notes: string[] = [];
  // Each part is read on its own: the history unavailable still shows the goals, and the other way round.
  const [history, goals, changes] = await Promise.all([
    request(graphUrl, ChannelHistoryDocument, { from, interval }).catch((error: unknown) => failed(error, notes)),
    request(graphUrl, ChannelGoalsDocument, {}).catch((error: unknown) => failed(error, notes)),
    request(graphUrl, SupporterChangesDocument, { since: from, first: 500 }).catch((error: unknown) => failed(error, notes)),
  ]);
  const points = history?.history ?? [];
  const byPlatform = (platform: 'MEMBERSHIP' | 'VIDEO', measure: 'members' | 'monthlyCents'): Series => ({
    name: platform === 'MEMBERSHIP' ? 'membership' : 'video',
    points: points.flatMap((point) => point.platforms.filter((part) => part.platform === platform).map((part) => ({ at: point.at, value: part[measure] }))),
  });
  const subscribers: Series = { name: 'subscribers', points: points.flatMap((point) => (point.subscribers === null || point.subscribers === undefined ? [] : [{ at: point.at, value: point.subscribers }])) };
  const goalRows = (goals?.goals ?? []).map((goal) => {
    const share = Math.min(1, goal.progress);
    const shown = goal.measure === 'MONTHLY_CENTS' ? `${cents(goal.value)} of ${cents(goal.target)}` : `${goal.value} of ${goal.target}`;
    return `<li class="goal" data-goal="${escapeHtml(goal.id)}" data-value="${goal.value}" data-target="${goal.target}"><span>${escapeHtml(goal.title)} — ${shown}${goal.reached ? ' ✓' : ''}</span>
<svg width="320" height="14" viewBox="0 0 320 14"><rect width="320" height="14" fill="#eee"/><rect class="bar" width="${(320 * share).toFixed(1)}" height="14" fill="${goal.reached ? '#27ae60' : '#2471a3'}"/></svg></li>`;
  });
  const latest = (changes?.supporterChanges?.edges ?? []).slice(-20).reverse();
  const changeRows = latest.map(({ node }) => {
    const amount = (level: { amountCents: number; tierTitle?: string | null } | null | undefined): string => (level ? `${escapeHtml(level.tierTitle ?? '—')} ${cents(level.amountCents)}` : '—');
    return `<tr data-change="${escapeHtml(node.id)}"><td>${escapeHtml(node.at.slice(0, 16).replace('T', ' '))}</td><td>${escapeHtml(node.kind.toLowerCase().replace('_', ' '))}</td><td>${escapeHtml(node.platform.toLowerCase())}</td><td>${escapeHtml(node.name ?? node.supporterId)}</td><td>${amount(node.before)}</td><td>${amount(node.after)}</td></tr>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Channel dashboard</title>
<style>body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:720px}h2{font-size:15px;margin:20px 0 4px}.legend span{margin-right:12px}.empty,.note{color:#888}ul{list-style:none;padding:0}li.goal{margin:6px 0}li.goal span{display:block}table{border-collapse:collapse;width:100%}td{border-bottom:1px solid #eee;padding:3px 6px;font-size:13px}</style></head>
<body><h1>Channel dashboard</h1><p class="note">The last ${days} day${days === 1 ? '' : 's'}, by ${interval === 'HOUR' ? 'hour' : 'day'} (<a href="?days=1">1 day</a> · <a href="?days=7">7</a> · <a href="?days=30">30</a> · <a href="?days=365">365</a>).</p>
${notes.map((note) => `<p class="note">${escapeHtml(note)}</p>`).join('')}
${lineChart('members', 'Members', [byPlatform('MEMBERSHIP', 'members'), byPlatform('VIDEO', 'members')], (value) => String(value))}
${lineChart('monthly', 'Monthly amount', [byPlatform('MEMBERSHIP', 'monthlyCents'), byPlatform('VIDEO', 'monthlyCents')], cents)}
${lineChart('subscribers', 'Subscribers', [subscribers], (value) => value.toLocaleString('en-US'))}
<section><h2>Goals</h2>${goalRows.length === 0 ? '<p class="empty">No goals (GOALS_FILE).</p>' : `<ul>${goalRows.join('')}</ul>`}</section>
<section><h2>Latest changes</h2>${changeRows.length === 0 ? '<p class="empty">No change in this range.</p>' : `<table id="changes">${changeRows.join('')}</table>`}</section>
</body></html>`;
}

function failed(error: unknown, notes: string[]): undefined {
  notes.push(error instanceof GraphQLRequestError ? (error.errors[0]?.message ?? error.message) : `the graph could not be read (${error instanceof Error ? error.message : String(error)})`);
  return undefined;
}

export function createDashboardHandler(options: DashboardOptions): DashboardHandler {
  const handler = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== DASHBOARD_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendProblem(res, problem(405, `${req.method ?? ''} is not allowed on ${DASHBOARD_PATH}; allowed: GET, HEAD`, DASHBOARD_PATH), { allow: 'GET, HEAD' });
      return true;
    }
    let days: number;
    try {
      days = readDays(url);
    } catch (error) {
      sendProblem(res, problem(400, (error as Error).message, DASHBOARD_PATH), { 'access-control-allow-origin': '*' });
      return true;
    }
    render(options.graphUrl(), days).then(
      (html) => new TaggedBody(Buffer.from(html), { fields: [...Object.entries(HEADERS), ['cache-control', 'no-store']], contentType: 'text/html; charset=utf-8', effort: 'answer', compression: options.compression }).send(req, res),
      () => sendProblem(res, problem(500, 'the dashboard could not be rendered', DASHBOARD_PATH)),
    );
    return true;
  };
  return Object.assign(handler, { paths: new Set([DASHBOARD_PATH]) });
}
