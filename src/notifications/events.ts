/**
 * What the notifications send: the events of the `webhooks:` of openapi/channel-api.yaml (a supporter
 * joined, left, upgraded, downgraded or changed tier; a goal was reached), and the fields a destination
 * may carry. An event is recorded whole — every field — and each destination gets it cut down to its
 * own `fields` when it is sent, so a change of notifications.json applies to what is still pending.
 */
import type { ChannelNotification, GoalNotification, NotificationKind, NotificationSupporter, SupporterNotification } from '@channel-graph/client/webhooks';

export type { ChannelNotification, GoalNotification, NotificationKind, NotificationSupporter, SupporterNotification } from '@channel-graph/client/webhooks';
/** A tier as an event names it. */
export type NotificationTier = NonNullable<NotificationSupporter['tier']>;

export const NOTIFICATION_KINDS = [
  'supporter.joined',
  'supporter.left',
  'supporter.upgraded',
  'supporter.downgraded',
  'supporter.tier_changed',
  'goal.reached',
] as const satisfies readonly NotificationKind[];

/** The fields a destination may carry (`fields` in notifications.json). */
export const NOTIFICATION_FIELDS = ['id', 'name', 'platform', 'tier', 'amount'] as const;
export type NotificationField = (typeof NOTIFICATION_FIELDS)[number];

/** An event as the outbox holds it: its id (`webhook-id`, stable across retries) and its whole body. */
export interface NotificationEvent {
  /** `evt_` and 32 hexadecimal digits. */
  id: string;
  body: ChannelNotification;
}

/**
 * A supporter with every field: what a recorded change gives. `previous` is what changed (amount and
 * tier before) for upgraded, downgraded and tier_changed.
 */
export interface SupporterChangeInput {
  kind: SupporterNotification['type'];
  /** When the change was recorded (ISO-8601). */
  at: string;
  supporter: Required<NotificationSupporter>;
  previous?: { tier: NotificationTier | null; amountCents: number };
}

export interface GoalReachedInput {
  kind: 'goal.reached';
  at: string;
  goal: Required<GoalNotification['data']['goal']>;
}

export type NotificationInput = SupporterChangeInput | GoalReachedInput;

/** The whole body of an event. */
export function notificationBody(input: NotificationInput): ChannelNotification {
  if (input.kind === 'goal.reached') return { type: 'goal.reached', timestamp: input.at, data: { goal: { ...input.goal } } };
  return {
    type: input.kind,
    timestamp: input.at,
    data: { supporter: { ...input.supporter }, ...(input.previous === undefined ? {} : { previous: { ...input.previous } }) },
  };
}

/** The body cut down to `fields`: a property whose field the destination does not carry is absent. */
export function bodyWithFields(body: ChannelNotification, fields: ReadonlySet<NotificationField>): ChannelNotification {
  if (body.type === 'goal.reached') {
    const { target, current, ...goal } = body.data.goal;
    // A members goal counts people; a monthly-amount goal's figures are amounts.
    const figures = goal.metric === 'members' || fields.has('amount') ? { ...(target === undefined ? {} : { target }), ...(current === undefined ? {} : { current }) } : {};
    return { ...body, data: { goal: { ...goal, ...figures } } };
  }
  const { supporter, previous } = body.data;
  const kept: NotificationSupporter = {};
  if (fields.has('id') && supporter.id !== undefined) kept.id = supporter.id;
  if (fields.has('name') && supporter.name !== undefined) kept.name = supporter.name;
  if (fields.has('platform') && supporter.platform !== undefined) kept.platform = supporter.platform;
  if (fields.has('tier') && supporter.tier !== undefined) kept.tier = supporter.tier;
  if (fields.has('amount') && supporter.amountCents !== undefined) kept.amountCents = supporter.amountCents;
  const before: NonNullable<typeof previous> = {};
  if (previous !== undefined) {
    if (fields.has('tier') && previous.tier !== undefined) before.tier = previous.tier;
    if (fields.has('amount') && previous.amountCents !== undefined) before.amountCents = previous.amountCents;
  }
  return { ...body, data: { supporter: kept, ...(Object.keys(before).length === 0 ? {} : { previous: before }) } };
}
