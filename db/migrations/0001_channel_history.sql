-- The channel over time: what each recorded snapshot changed, and the totals of each refresh.
-- Forward only: a released migration is never edited; a later one changes what it made
-- (npm run schema:check refuses a destructive one unless schema/accepted-changes.json accepts it).

CREATE TYPE platform AS ENUM ('membership', 'video');
CREATE TYPE snapshot_source AS ENUM ('membership', 'video', 'stats');
CREATE TYPE supporter_change_kind AS ENUM ('joined', 'left', 'upgraded', 'downgraded', 'tier_changed');

-- The supporters as last recorded, per platform: what the next snapshot is compared with.
CREATE TABLE recorded_supporter (
  platform platform NOT NULL,
  supporter_id text NOT NULL,
  name text,
  tier_id text,
  tier_title text,
  amount_cents integer NOT NULL,
  PRIMARY KEY (platform, supporter_id)
);

-- The last snapshot recorded of each source (membership, video, stats): a snapshot is recorded once,
-- and one fetched before it (a replica's, a stale file after a crash) is not recorded over it.
CREATE TABLE recorded_snapshot (
  source snapshot_source PRIMARY KEY,
  snapshot_id text NOT NULL,
  fetched_at timestamptz NOT NULL,
  observed_at timestamptz NOT NULL
);

-- Every change between two recorded snapshots of a platform, with the tier and amount before and after.
CREATE TABLE supporter_change (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  snapshot_id text NOT NULL,
  observed_at timestamptz NOT NULL,
  platform platform NOT NULL,
  supporter_id text NOT NULL,
  kind supporter_change_kind NOT NULL,
  name text,
  tier_id_before text,
  tier_title_before text,
  amount_cents_before integer,
  tier_id_after text,
  tier_title_after text,
  amount_cents_after integer,
  UNIQUE (snapshot_id, platform, supporter_id)
);
CREATE INDEX supporter_change_by_time ON supporter_change (observed_at, id);

-- The totals of each recorded snapshot: members and monthly amount of a platform, or the subscribers.
-- Compacted: after 7 days the last sample of each hour is kept, after 90 days the last of each day.
CREATE TABLE totals_sample (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source snapshot_source NOT NULL,
  snapshot_id text NOT NULL,
  observed_at timestamptz NOT NULL,
  members integer,
  monthly_cents bigint,
  subscribers bigint,
  UNIQUE (source, snapshot_id)
);
CREATE INDEX totals_sample_by_time ON totals_sample (source, observed_at);

-- The same sample per tier (supporters at no tier under tier_id '').
CREATE TABLE totals_tier (
  sample_id bigint NOT NULL REFERENCES totals_sample (id) ON DELETE CASCADE,
  tier_id text NOT NULL,
  tier_title text,
  members integer NOT NULL,
  monthly_cents bigint NOT NULL,
  PRIMARY KEY (sample_id, tier_id)
);

-- Each goal of the goals file as last seen: reached, and since when it has been below its target.
CREATE TABLE goal_state (
  goal_id text PRIMARY KEY,
  reached_at timestamptz,
  below_since timestamptz
);
