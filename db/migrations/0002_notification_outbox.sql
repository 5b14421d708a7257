-- The notifications' outbox: every event to send out, written in the transaction of the change it
-- records, and its delivery to each destination of notifications.json that gets its kind.
-- Forward only: a released migration is never edited; a later one changes what it made.

-- An event, whole (every field; each destination gets it cut down to its own fields when sent).
-- Its id is the `webhook-id` of every delivery of it, on every retry and replay.
CREATE TABLE notification_event (
  id text PRIMARY KEY,
  kind text NOT NULL,
  body jsonb NOT NULL,
  recorded_at timestamptz NOT NULL
);

CREATE TYPE notification_delivery_state AS ENUM ('pending', 'delivered', 'dead');

-- One event to one destination. `pending` until a 2xx (`delivered`) or the last retry (`dead`, a
-- dead letter until replayed). A worker takes a due one (FOR UPDATE SKIP LOCKED) and leases it
-- (`lease_until`) for one attempt: no other replica takes it meanwhile, and if the worker dies the
-- lease runs out and it is taken again.
CREATE TABLE notification_delivery (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id text NOT NULL REFERENCES notification_event (id) ON DELETE CASCADE,
  destination text NOT NULL,
  state notification_delivery_state NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  -- Retries end a while after this (notifications.json `delivery.retryForMs`): when the event was
  -- recorded, or when an operator replayed the dead letter.
  retry_since timestamptz NOT NULL,
  lease_until timestamptz,
  last_attempt_at timestamptz,
  last_status integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL,
  UNIQUE (event_id, destination)
);
-- What a worker looks for: a destination's due deliveries, oldest first.
CREATE INDEX notification_delivery_due ON notification_delivery (destination, next_attempt_at, id) WHERE state = 'pending';
-- The deliveries view (newest first) and the removal of old delivered and dead ones.
CREATE INDEX notification_delivery_recent ON notification_delivery (created_at, id);
