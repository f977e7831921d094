import type { Knex } from 'knex';
import type { ReferenceDataKind, ReferenceDataRow, SupplyType } from './referenceData';

/**
 * Store of the `reference_data` table (migration 0002); `account_references` is the Account's
 * (db/stores/accountLookups.ts findReferenceOwners). Functions take a knex handle that may be a
 * transaction; they never open one themselves.
 */

interface ReferenceDataRecord {
  kind: ReferenceDataKind;
  code: string;
  fuel: SupplyType | null;
  description: string | null;
}

export async function listReferenceData(db: Knex, kind?: ReferenceDataKind): Promise<ReferenceDataRow[]> {
  const q = db<ReferenceDataRecord>('reference_data').select('kind', 'code', 'fuel', 'description').orderBy(['kind', 'code', 'fuel']);
  if (kind !== undefined) q.where({ kind });
  const rows = await q;
  return rows.map((r) => ({ kind: r.kind, code: r.code, fuel: r.fuel, description: r.description }));
}

/** Inserts rows, or updates the description (and modified_at) of rows that already exist. */
export async function upsertReferenceData(db: Knex, rows: readonly ReferenceDataRow[]): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((r) => ({ kind: r.kind, code: r.code, fuel: r.fuel ?? null, description: r.description ?? null }));
  // The conflict target is the expression index reference_data_kind_code_fuel_uq.
  await db.raw(
    `INSERT INTO reference_data (kind, code, fuel, description)
     SELECT x.kind, x.code, x.fuel, x.description
       FROM jsonb_to_recordset(?::jsonb) AS x(kind text, code text, fuel text, description text)
     ON CONFLICT (kind, code, (COALESCE(fuel, '')))
     DO UPDATE SET description = EXCLUDED.description, modified_at = now()`,
    [JSON.stringify(values)],
  );
}

/** Deletes a code of a kind (every fuel). Returns the number of rows removed. */
export async function deleteReferenceData(db: Knex, kind: ReferenceDataKind, code: string): Promise<number> {
  return db('reference_data').where({ kind, code }).delete();
}

/** A cheap fingerprint of the table: changes whenever a row is inserted, updated or deleted. */
export async function referenceDataVersion(db: Knex): Promise<string> {
  const row = (await db('reference_data')
    .select(db.raw('max(modified_at) AS modified'), db.raw('count(*)::int AS n'))
    .first()) as { modified: Date | string | null; n: number } | undefined;
  const modified = row?.modified instanceof Date ? row.modified.toISOString() : String(row?.modified ?? '');
  return `${modified}|${row?.n ?? 0}`;
}

export interface ReferencePair {
  namespace: string;
  value: string;
}
