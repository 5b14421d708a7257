import { randomUUID } from 'node:crypto';
import { notificationBody, type GoalReachedInput, type NotificationEvent, type SupporterChangeInput } from '../../src/notifications/events.js';

/** Events as the outbox holds them, for the notification tests. */
export function supporterEvent(kind: SupporterChangeInput['kind'] = 'supporter.joined', overrides: Partial<Omit<SupporterChangeInput, 'kind'>> = {}): NotificationEvent {
  const input: SupporterChangeInput = {
    kind,
    at: '2026-03-01T12:00:00.000Z',
    supporter: { id: 'member-1', platform: 'membership', name: 'Ada', tier: { id: 'tier-gold', title: 'Gold' }, amountCents: 1500 },
    ...(kind === 'supporter.upgraded' || kind === 'supporter.downgraded' || kind === 'supporter.tier_changed' ? { previous: { tier: { id: 'tier-silver', title: 'Silver' }, amountCents: 500 } } : {}),
    ...overrides,
  };
  return { id: `evt_${randomUUID().replaceAll('-', '')}`, body: notificationBody(input) };
}

export function goalEvent(goal: Partial<GoalReachedInput['goal']> = {}): NotificationEvent {
  return {
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    body: notificationBody({
      kind: 'goal.reached',
      at: '2026-03-01T12:00:00.000Z',
      goal: { id: 'monthly-500', title: '500 a month', metric: 'monthly_amount', platform: null, target: 50_000, current: 51_250, progress: 1.025, ...goal },
    }),
  };
}
