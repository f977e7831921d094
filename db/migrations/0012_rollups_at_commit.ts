import type { Knex } from 'knex';

/**
 * The roll-ups of the operations page (migration 0008) counted at commit, in the writer's own slot.
 *
 * Before: the roll-up triggers ran at the status UPDATE and locked their counter rows (16 slots
 * by import id; 4 per minute for the PROCESSED histogram) until the transaction committed, which
 * for the account creation is several round trips later. Under 32 concurrent creates the PROCESSED
 * update waited on those rows ~12 ms per account (pg_stat_statements, bench/NOTES.md).
 *
 * Now:
 * - the row triggers are constraint triggers, DEFERRABLE INITIALLY DEFERRED: they still run in the
 *   transaction of the change (an error still aborts it), but at its COMMIT, so a counter row is
 *   held from the end of the transaction only;
 * - the slot is the writer's (pg_backend_pid() modulo the slot count), not the row's: two
 *   connections touch the same counter row only when their process ids share the remainder,
 *   and one connection runs one transaction at a time. A slot may then hold a negative count
 *   (a decrement by another writer than the increment); readers sum the slots, as before;
 * - ops_count_add is PL/pgSQL, so its INSERT … ON CONFLICT is planned once per connection instead
 *   of at every call (an SQL function that cannot be inlined is planned again each time).
 *
 * The counts themselves do not change: ops_rebuild_rollups() (slots by id) still recomputes them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION ops_writer_slot(slots integer) RETURNS smallint LANGUAGE sql STABLE AS $$
      SELECT (pg_backend_pid() % slots)::smallint
    $$;

    CREATE OR REPLACE FUNCTION ops_count_add(p_kind text, p_supplier text, p_status text, p_code text, p_slot smallint, p_delta bigint)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ops_counts (kind, import_supplier, status, error_code, slot, n)
      VALUES (p_kind, p_supplier, p_status, p_code, p_slot, p_delta)
      ON CONFLICT (kind, import_supplier, status, error_code, slot) DO UPDATE SET n = ops_counts.n + excluded.n;
    END $$;

    CREATE OR REPLACE FUNCTION ops_import_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      s smallint := ops_writer_slot(16);
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM ops_count_move('import', s, NULL, NULL, NULL,
                               NEW.import_supplier, NEW.status, ops_error_code(NEW.status, NEW.latest_error));
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM ops_count_move('import', s, OLD.import_supplier, OLD.status, ops_error_code(OLD.status, OLD.latest_error),
                               NULL, NULL, NULL);
        RETURN NULL;
      ELSE
        PERFORM ops_count_move('import', s,
                               OLD.import_supplier, OLD.status, ops_error_code(OLD.status, OLD.latest_error),
                               NEW.import_supplier, NEW.status, ops_error_code(NEW.status, NEW.latest_error));
      END IF;
      IF NEW.status = 'PROCESSED' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'PROCESSED') THEN
        PERFORM ops_add_processed(NEW.import_supplier, NEW.modified_at, ops_writer_slot(4),
          extract(epoch FROM NEW.modified_at - coalesce(NEW.run_started_at, NEW.created_at)) * 1000);
      END IF;
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION ops_registration_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      s smallint := ops_writer_slot(16);
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM ops_count_move('registration', s, NULL, NULL, NULL, NEW.import_supplier, NEW.status, '');
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM ops_count_move('registration', s, OLD.import_supplier, OLD.status, '', NULL, NULL, NULL);
      ELSE
        PERFORM ops_count_move('registration', s, OLD.import_supplier, OLD.status, '', NEW.import_supplier, NEW.status, '');
      END IF;
      RETURN NULL;
    END $$;

    CREATE OR REPLACE FUNCTION ops_email_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      s smallint := ops_writer_slot(16);
    BEGIN
      IF TG_OP = 'INSERT' THEN
        PERFORM ops_count_move('email', s, NULL, NULL, NULL, ops_email_supplier(NEW.account_number), NEW.status, '');
      ELSIF TG_OP = 'DELETE' THEN
        PERFORM ops_count_move('email', s, ops_email_supplier(OLD.account_number), OLD.status, '', NULL, NULL, NULL);
      ELSIF OLD.status IS DISTINCT FROM NEW.status THEN
        PERFORM ops_count_move('email', s, ops_email_supplier(OLD.account_number), OLD.status, '',
                               ops_email_supplier(NEW.account_number), NEW.status, '');
      END IF;
      RETURN NULL;
    END $$;

    DROP TRIGGER ops_import_rollup ON import_processes;
    DROP TRIGGER ops_registration_rollup ON meter_point_registrations;
    DROP TRIGGER ops_email_rollup ON customer_email_queue;
    CREATE CONSTRAINT TRIGGER ops_import_rollup
      AFTER INSERT OR DELETE OR UPDATE OF status, latest_error, import_supplier ON import_processes
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ops_import_rollup();
    CREATE CONSTRAINT TRIGGER ops_registration_rollup
      AFTER INSERT OR DELETE OR UPDATE OF status, import_supplier ON meter_point_registrations
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ops_registration_rollup();
    CREATE CONSTRAINT TRIGGER ops_email_rollup
      AFTER INSERT OR DELETE OR UPDATE OF status ON customer_email_queue
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ops_email_rollup();
  `);
}

/** Back to migration 0008's triggers: immediate, slots by row id, ops_count_add in SQL. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER ops_import_rollup ON import_processes;
    DROP TRIGGER ops_registration_rollup ON meter_point_registrations;
    DROP TRIGGER ops_email_rollup ON customer_email_queue;

    CREATE OR REPLACE FUNCTION ops_count_add(p_kind text, p_supplier text, p_status text, p_code text, p_slot smallint, p_delta bigint)
    RETURNS void LANGUAGE sql AS $$
      INSERT INTO ops_counts (kind, import_supplier, status, error_code, slot, n)
      VALUES (p_kind, p_supplier, p_status, p_code, p_slot, p_delta)
      ON CONFLICT (kind, import_supplier, status, error_code, slot) DO UPDATE SET n = ops_counts.n + excluded.n
    $$;

    CREATE OR REPLACE FUNCTION ops_import_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
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

    CREATE OR REPLACE FUNCTION ops_registration_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
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

    CREATE OR REPLACE FUNCTION ops_email_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
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

    CREATE TRIGGER ops_import_rollup AFTER INSERT OR DELETE OR UPDATE OF status, latest_error, import_supplier ON import_processes
      FOR EACH ROW EXECUTE FUNCTION ops_import_rollup();
    CREATE TRIGGER ops_registration_rollup AFTER INSERT OR DELETE OR UPDATE OF status, import_supplier ON meter_point_registrations
      FOR EACH ROW EXECUTE FUNCTION ops_registration_rollup();
    CREATE TRIGGER ops_email_rollup AFTER INSERT OR DELETE OR UPDATE OF status ON customer_email_queue
      FOR EACH ROW EXECUTE FUNCTION ops_email_rollup();

    DROP FUNCTION ops_writer_slot(integer);
  `);
}
