import { LAYOUT, type TableLayout } from './accountLayout';
import type { AccountTable, Row } from './accountTables';
import type { Account } from './accountTypes';
import { fromStoredLedgers } from './ledgerForm';

export interface CreatedAccount {
  accountId: number;
  accountNumber: string;
  users: {
    userId: number;
    userNumber: string;
    email: string | null;
    psrRecords: { electricityIndustryCode: string; gasIndustryCode: string; description: string }[];
  }[];
  agreements: { agreementId: number; meterPointIdentifier: string; validFrom: string; productCode: string }[];
  metadata: { key: string; value: unknown }[];
  /** Named by its slug or by its campaign_name (exactly one, by the validator). */
  campaigns: { slug: string | null; name: string | null; campaignNote: string }[];
  dunningPath: { pathName: string; startDate: string; dunningProcessId: string } | null;
  meterPoints: {
    id: number;
    identifier: string;
    supplyType: 'ELECTRICITY' | 'GAS';
    mpid: string | null;
    supplyStartDate: string | null;
    etInProgress: boolean;
    drInProgress: boolean;
  }[];
}

export type LoadedRows = Partial<Record<AccountTable, Row[]>>;

/** Rows of `table` grouped by a parent column, in position order (the caller's SELECT orders them). */
function childrenOf(rows: LoadedRows, table: AccountTable, parentColumn: string): Map<number, Row[]> {
  const map = new Map<number, Row[]>();
  for (const row of rows[table] ?? []) {
    const key = row[parentColumn] as number;
    const list = map.get(key);
    if (list) list.push(row);
    else map.set(key, [row]);
  }
  return map;
}

/** The slice of an account the import workflow needs after the write (events, registration). */
export function createdFromRows(account: Row, rows: LoadedRows): CreatedAccount {
  const psrByUser = childrenOf(rows, 'psr_records', 'account_user_id');
  const meterPoints = rows.meter_points ?? [];
  const identifierById = new Map(meterPoints.map((mp) => [mp.id as number, mp.identifier as string]));
  const dunning = rows.dunning_paths?.[0];
  return {
    accountId: account.id as number,
    accountNumber: account.number as string,
    users: (rows.account_users ?? []).map((u) => ({
      userId: u.id as number,
      userNumber: u.user_number as string,
      email: (u.email as string | undefined) ?? null,
      psrRecords: (psrByUser.get(u.id as number) ?? []).map((p) => ({
        electricityIndustryCode: (p.elec_industry_code as string | undefined) ?? '',
        gasIndustryCode: (p.gas_industry_code as string | undefined) ?? '',
        description: (p.description as string | undefined) ?? '',
      })),
    })),
    agreements: (rows.agreements ?? []).map((g) => ({
      agreementId: g.id as number,
      meterPointIdentifier: identifierById.get(g.meter_point_id as number)!,
      validFrom: g.effective_from as string,
      productCode: g.tariff_code as string,
    })),
    metadata: (rows.account_metadata ?? []).map((m) => ({ key: m.key as string, value: m.value })),
    campaigns: (rows.account_campaigns ?? []).map((c) => ({
      slug: (c.slug as string | undefined) ?? null,
      name: (c.campaign_name as string | undefined) ?? null,
      campaignNote: (c.campaign_note as string | undefined) ?? '',
    })),
    dunningPath: dunning
      ? {
          pathName: dunning.path_name as string,
          startDate: (dunning.start_date as string | undefined) ?? '',
          dunningProcessId: dunning.dunning_process_id as string,
        }
      : null,
    meterPoints: meterPoints.map((mp) => ({
      id: mp.id as number,
      identifier: mp.identifier as string,
      supplyType: mp.supply_type as 'ELECTRICITY' | 'GAS',
      mpid: (mp.mpid as string | undefined) ?? null,
      supplyStartDate: (mp.supply_start_date as string | undefined) ?? null,
      etInProgress: mp.et_in_progress === true,
      drInProgress: mp.dr_in_progress === true,
    })),
  };
}

/** Sets `value` at the dot path `path` of `target`, making the objects on the way. */
function setField(target: Row, path: readonly string[], value: unknown): void {
  let at = target;
  for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Row;
  at[path[path.length - 1]!] = value;
}

/**
 * The payload again, from the rows (all converted by fromDb, each table in position order), by
 * walking the descriptor (accountTables.ts) as planAccountRows does. An empty optional array reads
 * back as absent, like an absent one; a required array (customers, meter_points...) always comes back.
 */
export function accountFromRows(account: Row, rows: LoadedRows, references: Row[]): Account {
  const byParent = new Map<AccountTable, Map<number, Row[]>>();
  for (const table of Object.keys(LAYOUT) as AccountTable[]) {
    const { parentColumn, owned } = LAYOUT[table];
    if (parentColumn) byParent.set(table, childrenOf(rows, table, parentColumn));
    else if (!owned) byParent.set(table, new Map([[account.id as number, references]]));
  }

  const assemble = (layout: TableLayout, row: Row): Row => {
    const out: Row = {};
    for (const c of layout.columns) {
      const v = row[c.name];
      if (v === undefined) continue;
      if (c.key !== null) out[c.key] = v;
      else if (c.field) setField(out, c.field, v);
    }
    for (const child of layout.children) {
      const childLayout = LAYOUT[child];
      const all = byParent.get(child)!.get(row.id as number) ?? [];
      for (const { split, path } of childLayout.sources) {
        const mine = split === null ? all : all.filter((r) => r[childLayout.splitColumn!] === split);
        if (childLayout.one) {
          if (mine[0]) out[path] = assemble(childLayout, mine[0]);
        } else if (mine.length > 0 || childLayout.required) {
          out[path] = mine.map((r) => assemble(childLayout, r));
        }
      }
    }
    return out;
  };
  // The rows were written from a validated Account, so reassembling them gives one back.
  return fromStoredLedgers(assemble(LAYOUT.accounts, account) as unknown as Account);
}
