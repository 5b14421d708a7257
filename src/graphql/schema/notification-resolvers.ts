/**
 * The notifications' deliveries in the graph: `notificationDeliveries`, the newest first, a page at a
 * time (docs/notifications.md#watching-them). Null with a HISTORY_UNAVAILABLE error while the
 * history's database is opening or unreachable; `first` out of bounds or a cursor not ours is a
 * BAD_USER_INPUT error.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { NotificationDeliveryState as GraphState, NotificationKind as GraphKind, Resolvers } from '../../../generated/channel/resolvers-types.js';
import { HistoryQueryError } from '../../history/history-service.js';
import type { NotificationKind } from '../../notifications/events.js';
import { MAX_DELIVERIES_PAGE, type Notifications } from '../../notifications/notifications.js';
import type { DeliveryState } from '../../notifications/outbox.js';
import { historyError } from './history-resolvers.js';
import { property } from './property-resolvers.js';

const GRAPH_KIND_OF: Record<NotificationKind, GraphKind> = {
  'supporter.joined': 'SUPPORTER_JOINED',
  'supporter.left': 'SUPPORTER_LEFT',
  'supporter.upgraded': 'SUPPORTER_UPGRADED',
  'supporter.downgraded': 'SUPPORTER_DOWNGRADED',
  'supporter.tier_changed': 'SUPPORTER_TIER_CHANGED',
  'goal.reached': 'GOAL_REACHED',
};
const STATE_OF: Record<GraphState, DeliveryState> = { PENDING: 'pending', DELIVERED: 'delivered', DEAD: 'dead' };
const GRAPH_STATE_OF: Record<DeliveryState, GraphState> = { pending: 'PENDING', delivered: 'DELIVERED', dead: 'DEAD' };

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

export function createNotificationResolvers(notifications: Notifications | undefined): Pick<Resolvers, 'NotificationDelivery' | 'NotificationDeliveryEdge' | 'NotificationDeliveryConnection'> & { Query: Pick<NonNullable<Resolvers['Query']>, 'notificationDeliveries'> } {
  return {
    Query: {
      notificationDeliveries: async (_root, { destination, state, first, after }, _ctx, info: GraphQLResolveInfo) => {
        if (notifications === undefined) return { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } };
        try {
          if (!Number.isSafeInteger(first) || first < 1 || first > MAX_DELIVERIES_PAGE) throw new HistoryQueryError(`first must be a whole number from 1 to ${MAX_DELIVERIES_PAGE}, got ${first}`);
          return await notifications.deliveries({ destination: destination ?? undefined, state: state ? STATE_OF[state] : undefined, first, after: after ?? undefined });
        } catch (error) {
          throw historyError(error, info);
        }
      },
    },
    NotificationDeliveryEdge: { node: property('node'), cursor: property('cursor') },
    NotificationDeliveryConnection: { edges: property('edges'), pageInfo: property('pageInfo') },
    NotificationDelivery: {
      eventId: property('eventId'),
      kind: (view) => GRAPH_KIND_OF[view.kind],
      destination: property('destination'),
      state: (view) => GRAPH_STATE_OF[view.state],
      attempts: property('attempts'),
      recordedAt: (view) => view.recordedAt.toISOString(),
      lastAttemptAt: (view) => iso(view.lastAttemptAt),
      lastStatus: property('lastStatus'),
      lastError: property('lastError'),
      nextAttemptAt: (view) => iso(view.nextAttemptAt),
      deliveredAt: (view) => iso(view.deliveredAt),
    },
  };
}
