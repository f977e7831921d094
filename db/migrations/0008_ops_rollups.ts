import type { Knex } from 'knex';

/**
 * Roll-ups behind the operations page (ops/), kept current by triggers in the same transaction
 * as every status change, whatever code path makes it (API, activities, CLI, a hand-written
 * UPDATE). The page then reads a few hundred small rows instead of counting a book of a million
 * import processes.
 *
 * - ops_counts: how many import processes / meter point registrations / customer e-mails of a
 *   supplier are in each status (for errored imports also per error code). Each count is spread
 *   over OPS_SLOTS rows (slot = row id mod 16) so concurrent transitions of different imports
 *   rarely wait for the same counter row; readers sum the slots.
 * - ops_processed_minutes: imports that became PROCESSED per supplier and minute, with a
 *   histogram of their run-start → PROCESSED latency (buckets: ops_latency_bounds_ms()), over
 *   4 slots (ops_minute_slot).
 * - import_processes.run_started_at: when the current run was created (the trigger sets it on
 *   insert and on every new run), so a re-run's latency does not include the earlier runs.
 *
 * ops_rebuild_rollups() recomputes everything from the source tables (used here as the backfill,
 * by the benchmark, and by an operator who suspects drift).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE import_processes ADD COLUMN run_started_at timestamptz;

    CREATE TABLE ops_counts (
      kind varchar(16) NOT NULL,
      import_supplier varchar(64) NOT NULL,
      status varchar(32) NOT NULL,
      error_code varchar(200) NOT NULL DEFAULT '',
      slot smallint NOT NULL,
      n bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (kind, import_supplier, status, error_code, slot)
    );

    CREATE TABLE ops_processed_minutes (
      import_supplier varchar(64) NOT NULL,
      minute timestamptz NOT NULL,
      slot smallint NOT NULL,
      processed integer NOT NULL,
      latency_hist integer[] NOT NULL,
      PRIMARY KEY (import_supplier, minute, slot)
    );
    -- "all suppliers" reads a time range across suppliers.
    CREATE INDEX ops_processed_minutes_minute_idx ON ops_processed_minutes (minute);

    -- The affected accounts of one error code, in account order, one page at a time.
    CREATE INDEX import_processes_error_code_idx ON import_processes
      ((latest_error->>'code'), import_supplier, external_account_number)
      WHERE status IN ('ERRORED', 'DRY_RUN_ERRORED');

    -- Lower bounds (ms) of the latency histogram buckets; bucket i counts bounds[i] <= ms < bounds[i+1].
    CREATE FUNCTION ops_latency_bounds_ms() RETURNS double precision[] LANGUAGE sql IMMUTABLE AS $$
      SELECT ARRAY[0, 250, 500, 1000, 2000, 5000, 10000, 20000, 30000, 60000, 120000, 300000,
                   600000, 1800000, 3600000, 7200000, 21600000, 86400000]::double precision[]
    $$;

    CREATE FUNCTION ops_slot(id bigint) RETURNS smallint LANGUAGE sql IMMUTABLE AS $$
      SELECT (id % 16)::smallint
    $$;

    -- The minute buckets get fewer slots: only PROCESSED transitions write them, and the latency
    -- series reads every row of its time range.
    CREATE FUNCTION ops_minute_slot(id bigint) RETURNS smallint LANGUAGE sql IMMUTABLE AS $$
      SELECT (id % 4)::smallint
    $$;

    CREATE FUNCTION ops_count_add(p_kind text, p_supplier text, p_status text, p_code text, p_slot smallint, p_delta bigint)
    RETURNS void LANGUAGE sql AS $$
      INSERT INTO ops_counts (kind, import_supplier, status, error_code, slot, n)
      VALUES (p_kind, p_supplier, p_status, p_code, p_slot, p_delta)
      ON CONFLICT (kind, import_supplier, status, error_code, slot) DO UPDATE SET n = ops_counts.n + excluded.n
    $$;

    -- Moves one row from one count to another. The two counter rows are always locked in the same
    -- order (by status, then code), so two transactions moving in opposite directions cannot deadlock.
    CREATE FUNCTION ops_count_move(p_kind text, p_slot smallint,
                                   o_supplier text, o_status text, o_code text,
                                   n_supplier text, n_status text, n_code text)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF o_status IS NOT DISTINCT FROM n_status AND o_code IS NOT DISTINCT FROM n_code
         AND o_supplier IS NOT DISTINCT FROM n_supplier THEN
        RETURN;
      END IF;
      IF o_status IS NULL THEN
        PERFORM ops_count_add(p_kind, n_supplier, n_status, n_code, p_slot, 1);
      ELSIF n_status IS NULL THEN
        PERFORM ops_count_add(p_kind, o_supplier, o_status, o_code, p_slot, -1);
      ELSIF (o_supplier, o_status, o_code) < (n_supplier, n_status, n_code) THEN
        PERFORM ops_count_add(p_kind, o_supplier, o_status, o_code, p_slot, -1);
        PERFORM ops_count_add(p_kind, n_supplier, n_status, n_code, p_slot, 1);
      ELSE
        PERFORM ops_count_add(p_kind, n_supplier, n_status, n_code, p_slot, 1);
        PERFORM ops_count_add(p_kind, o_supplier, o_status, o_code, p_slot, -1);
      END IF;
    END $$;

    CREATE FUNCTION ops_error_code(p_status text, p_error jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN p_status IN ('ERRORED', 'DRY_RUN_ERRORED') THEN coalesce(left(p_error->>'code', 200), '') ELSE '' END
    $$;

    CREATE FUNCTION ops_latency_bucket(ms double precision) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
      SELECT greatest(1, width_bucket(ms, ops_latency_bounds_ms()))
    $$;

    CREATE FUNCTION ops_add_processed(p_supplier text, p_at timestamptz, p_slot smallint, p_ms double precision)
    RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      b integer := ops_latency_bucket(p_ms);
      h integer[] := array_fill(0, ARRAY[array_length(ops_latency_bounds_ms(), 1)]);
    BEGIN
      h[b] := 1;
      INSERT INTO ops_processed_minutes AS m (import_supplier, minute, slot, processed, latency_hist)
      VALUES (p_supplier, date_trunc('minute', p_at), p_slot, 1, h)
      ON CONFLICT (import_supplier, minute, slot)
      DO UPDATE SET processed = m.processed + 1, latency_hist[b] = m.latency_hist[b] + 1;
    END $$;

    CREATE FUNCTION ops_import_run_start() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' OR NEW.run IS DISTINCT FROM OLD.run THEN
        NEW.run_started_at := NEW.modified_at;
      END IF;
      RETURN NEW;
    END $$;

    CREATE FUNCTION ops_import_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM ops_count_move('import', ops_slot(NEW.id), NULL, NULL, NULL,
                               NEW.import_supplier, NEW.status, ops_error_code(NEW.status, NEW.latest_error));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM ops_count_move('import', ops_slot(OLD.id), OLD.import_supplier, OLD.status, ops_error_code(OLD.status, OLD.latest_error),
                               NULL, NULL, NULL);
        RETURN NULL;
      ELSE
        PERFORM ops_count_move('import', ops_slot(NEW.id),
                               OLD.import_supplier, OLD.status, ops_error_code(OLD.status, OLD.latest_error),
                               NEW.import_supplier, NEW.status, ops_error_code(NEW.status, NEW.latest_error));
      END IF;
      IF NEW.status = 'PROCESSED' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'PROCESSED') THEN
        PERFORM ops_add_processed(NEW.import_supplier, NEW.modified_at, ops_minute_slot(NEW.id),
          extract(epoch FROM NEW.modified_at - coalesce(NEW.run_started_at, NEW.created_at)) * 1000);
      END IF;
      RETURN NULL;
    END $$;

    CREATE FUNCTION ops_import_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM ops_counts WHERE kind = 'import';
      DELETE FROM ops_processed_minutes;
      RETURN NULL;
    END $$;

    CREATE FUNCTION ops_registration_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM ops_count_move('registration', ops_slot(NEW.id), NULL, NULL, NULL, NEW.import_supplier, NEW.status, '');
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM ops_count_move('registration', ops_slot(OLD.id), OLD.import_supplier, OLD.status, '', NULL, NULL, NULL);
      ELSE
        PERFORM ops_count_move('registration', ops_slot(NEW.id), OLD.import_supplier, OLD.status, '', NEW.import_supplier, NEW.status, '');
      END IF;
      RETURN NULL;
    END $$;

    -- customer_email_queue names the account, not the supplier: look it up (accounts.number is unique).
    CREATE FUNCTION ops_email_supplier(p_account_number text) RETURNS text LANGUAGE sql STABLE AS $$
      SELECT coalesce((SELECT import_supplier FROM accounts WHERE number = p_account_number), '')
    $$;

    CREATE FUNCTION ops_email_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM ops_count_move('email', ops_slot(NEW.id), NULL, NULL, NULL, ops_email_supplier(NEW.account_number), NEW.status, '');
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM ops_count_move('email', ops_slot(OLD.id), ops_email_supplier(OLD.account_number), OLD.status, '', NULL, NULL, NULL);
      ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
        PERFORM ops_count_move('email', ops_slot(NEW.id), ops_email_supplier(OLD.account_number), OLD.status, '',
                               ops_email_supplier(NEW.account_number), NEW.status, '');
      END IF;
      RETURN NULL;
    END $$;

    CREATE TRIGGER ops_import_run_start BEFORE INSERT OR UPDATE OF run ON import_processes
      FOR EACH ROW EXECUTE FUNCTION ops_import_run_start();
    CREATE TRIGGER ops_import_rollup AFTER INSERT OR DELETE OR UPDATE OF status, latest_error, import_supplier ON import_processes
      FOR EACH ROW EXECUTE FUNCTION ops_import_rollup();
    CREATE TRIGGER ops_import_truncate AFTER TRUNCATE ON import_processes
      FOR EACH STATEMENT EXECUTE FUNCTION ops_import_truncate();
    CREATE TRIGGER ops_registration_rollup AFTER INSERT OR DELETE OR UPDATE OF status, import_supplier ON meter_point_registrations
      FOR EACH ROW EXECUTE FUNCTION ops_registration_rollup();
    CREATE TRIGGER ops_email_rollup AFTER INSERT OR DELETE OR UPDATE OF status ON customer_email_queue
      FOR EACH ROW EXECUTE FUNCTION ops_email_rollup();

    -- Recomputes every roll-up from the source tables. Takes SHARE locks: writers wait meanwhile,
    -- so nothing changes between the count and the swap.
    CREATE FUNCTION ops_rebuild_rollups() RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      LOCK TABLE import_processes, meter_point_registrations, customer_email_queue IN SHARE MODE;
      DELETE FROM ops_counts;
      DELETE FROM ops_processed_minutes;
      INSERT INTO ops_counts (kind, import_supplier, status, error_code, slot, n)
        SELECT 'import', import_supplier, status, ops_error_code(status, latest_error), ops_slot(id), count(*)
        FROM import_processes GROUP BY 2, 3, 4, 5;
      INSERT INTO ops_counts (kind, import_supplier, status, error_code, slot, n)
        SELECT 'registration', import_supplier, status, '', ops_slot(id), count(*)
        FROM meter_point_registrations GROUP BY 2, 3, 5;
      INSERT INTO ops_counts (kind, import_supplier, status, error_code, slot, n)
        SELECT 'email', coalesce(a.import_supplier, ''), q.status, '', ops_slot(q.id), count(*)
        FROM customer_email_queue q LEFT JOIN accounts a ON a.number = q.account_number GROUP BY 2, 3, 5;
      INSERT INTO ops_processed_minutes (import_supplier, minute, slot, processed, latency_hist)
        SELECT import_supplier, minute, slot, sum(n)::int,
               array_agg(n ORDER BY b)::int[]
        FROM (
          SELECT s.import_supplier, s.minute, s.slot, b, coalesce(c.n, 0) AS n
          FROM (SELECT DISTINCT import_supplier, date_trunc('minute', modified_at) AS minute, ops_minute_slot(id) AS slot
                FROM import_processes WHERE status = 'PROCESSED') s
          CROSS JOIN generate_series(1, array_length(ops_latency_bounds_ms(), 1)) b
          LEFT JOIN (
            SELECT import_supplier, date_trunc('minute', modified_at) AS minute, ops_minute_slot(id) AS slot,
                   ops_latency_bucket(extract(epoch FROM modified_at - coalesce(run_started_at, created_at)) * 1000) AS b,
                   count(*) AS n
            FROM import_processes WHERE status = 'PROCESSED' GROUP BY 1, 2, 3, 4
          ) c USING (import_supplier, minute, slot, b)
        ) x
        GROUP BY 1, 2, 3;
    END $$;

    SELECT ops_rebuild_rollups();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER IF EXISTS ops_email_rollup ON customer_email_queue;
    DROP TRIGGER IF EXISTS ops_registration_rollup ON meter_point_registrations;
    DROP TRIGGER IF EXISTS ops_import_truncate ON import_processes;
    DROP TRIGGER IF EXISTS ops_import_rollup ON import_processes;
    DROP TRIGGER IF EXISTS ops_import_run_start ON import_processes;
    DROP FUNCTION IF EXISTS ops_rebuild_rollups(), ops_email_rollup(), ops_email_supplier(text), ops_registration_rollup(),
      ops_import_truncate(), ops_import_rollup(), ops_import_run_start(),
      ops_add_processed(text, timestamptz, smallint, double precision), ops_latency_bucket(double precision),
      ops_error_code(text, jsonb), ops_count_move(text, smallint, text, text, text, text, text, text),
      ops_count_add(text, text, text, text, smallint, bigint), ops_minute_slot(bigint), ops_slot(bigint), ops_latency_bounds_ms();
    DROP INDEX IF EXISTS import_processes_error_code_idx;
    DROP TABLE IF EXISTS ops_processed_minutes;
    DROP TABLE IF EXISTS ops_counts;
    ALTER TABLE import_processes DROP COLUMN IF EXISTS run_started_at;
  `);
}
