import { platformRecord } from '../../account/platformAccount';
import { datetimeText, LAYOUT, type TableLayout } from './accountLayout';
import type { AccountTable, Row } from './accountTables';
import type { Account } from './accountTypes';
import { fromStoredLedgers } from './ledgerForm';

/** A consent of the account or of one of its customers (tables consents, account_user_consents). */
export interface CreatedConsent {
  id: number;
  /** The platform's consent type: a code of the platform's own configured set, stored as sent. */
  type: unknown;
  value: string;
  /** ISO UTC, as the read-back gives it; null when not sent (the platform then takes the import's time). */
  signedAt: string | null;
}

/** A metadata entry of a customer or of a supply address (account_user_metadata, property_metadata). */
export interface CreatedMetadata {
  id: number;
  key: string;
  value: unknown;
}

export interface CreatedAccount {
  accountId: number;
  accountNumber: string;
  users: {
    userId: number;
    userNumber: string;
    email: string | null;
    psrRecords: { electricityIndustryCode: string; gasIndustryCode: string; description: string }[];
    consents: CreatedConsent[];
    metadata: CreatedMetadata[];
  }[];
  agreements: {
    agreementId: number;
    meterPointIdentifier: string;
    validFrom: string;
    productCode: string;
    businessContractIdentifier: string | null;
  }[];
  metadata: { key: string; value: unknown }[];
  /** Named by its slug or by its campaign_name (exactly one, by the validator). */
  campaigns: { slug: string | null; campaignNote: string; campaignName: string | null; expiryDate: string | null }[];
  /** startDate: null when not sent (optional, as on the platform). */
  dunningPath: { pathName: string; startDate: string | null; dunningProcessId: string } | null;
  meterPoints: {
    id: number;
    identifier: string;
    supplyType: 'ELECTRICITY' | 'GAS';
    mpid: string | null;
    supplyStartDate: string | null;
    etInProgress: boolean;
    drInProgress: boolean;
  }[];
  /** The account's own consents (customers' are under users). */
  consents: CreatedConsent[];
  /** The account's business (`business`), when one was sent: its row's id. */
  business: { id: number } | null;
  /** Deposit agreements in payload order; dates ISO UTC, null when not sent. */
  depositAgreements: { id: number; reason: string; depositAmount: string; acceptedAt: string | null; fulfilledAt: string | null }[];
  /** Each supply address's metadata, with the id of the supply address's row (properties). */
  propertyMetadata: (CreatedMetadata & { propertyId: number })[];
  /** How many ledgers the account has (ledgers[], or 1 for the top-level ledger form). */
  ledgerCount: number;
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

/**
 * A date-time column as the read-back gives it: the freshly planned rows hold the payload's text
 * (any offset), the loaded ones its instant; both become ISO UTC, so a retried create that finds
 * the account publishes the payloads the first attempt did.
 */
const instant = (v: unknown): string | null => (v === undefined || v === null ? null : datetimeText(v));
const text = (v: unknown): string | null => (v === undefined || v === null ? null : (v as string));

// The events' platform fields read through the description's names (account/platformAccount.ts
// platformRecord): a field a regenerated description drops fails the type check here.
const consentOf = (row: Row): CreatedConsent => {
  const c = platformRecord(row, 'consents.*');
  return { id: row.id as number, type: c.type, value: c.value as string, signedAt: instant(c.signed_at) };
};
const metadataOf = (m: Row): CreatedMetadata => ({ id: m.id as number, key: m.key as string, value: m.value });

/**
 * The slice of an account the import workflow needs after the write (events, registration), from
 * the rows insertAccount planned or the rows read back: the same CreatedAccount either way.
 */
export function createdFromRows(account: Row, rows: LoadedRows): CreatedAccount {
  const psrByUser = childrenOf(rows, 'psr_records', 'account_user_id');
  const consentsByUser = childrenOf(rows, 'account_user_consents', 'account_user_id');
  const metadataByUser = childrenOf(rows, 'account_user_metadata', 'account_user_id');
  const meterPoints = rows.meter_points ?? [];
  const identifierById = new Map(meterPoints.map((mp) => [mp.id as number, mp.identifier as string]));
  const dunning = rows.dunning_paths?.[0];
  const business = rows.account_business?.[0];
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
      consents: (consentsByUser.get(u.id as number) ?? []).map(consentOf),
      metadata: (metadataByUser.get(u.id as number) ?? []).map(metadataOf),
    })),
    agreements: (rows.agreements ?? []).map((g) => ({
      agreementId: g.id as number,
      meterPointIdentifier: identifierById.get(g.meter_point_id as number)!,
      validFrom: g.effective_from as string,
      productCode: g.tariff_code as string,
      businessContractIdentifier: text(platformRecord(g, 'supply_addresses.*.meter_points.*.agreements.*').business_contract_identifier),
    })),
    metadata: (rows.account_metadata ?? []).map((m) => ({ key: m.key as string, value: m.value })),
    campaigns: (rows.account_campaigns ?? []).map((row) => {
      const c = platformRecord(row, 'account_campaigns.*');
      // slug is this service's (reference data), not the platform's.
      return { slug: (row.slug as string | undefined) ?? null, campaignNote: (c.campaign_note as string | undefined) ?? '', campaignName: text(c.campaign_name), expiryDate: text(c.expiry_date) };
    }),
    dunningPath: dunning
      ? {
          pathName: dunning.path_name as string,
          startDate: text(dunning.start_date),
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
    consents: (rows.consents ?? []).map(consentOf),
    business: business ? { id: business.id as number } : null,
    depositAgreements: (rows.deposit_agreements ?? []).map((row) => {
      const d = platformRecord(row, 'deposit_agreements.*');
      return {
        id: row.id as number,
        reason: d.reason as string,
        // A decimal's text as sent (the planned row holds it; the read-back prefers its _text column).
        depositAmount: String(d.deposit_amount),
        acceptedAt: instant(d.accepted_at),
        fulfilledAt: instant(d.fulfilled_at),
      };
    }),
    propertyMetadata: (rows.property_metadata ?? []).map((m) => ({ ...metadataOf(m), propertyId: m.property_id as number })),
    ledgerCount: (rows.ledgers ?? []).length,
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
