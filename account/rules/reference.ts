import { list, okItems, type RuleContext } from './context';
import { debtRecords } from './debt';
import { meterPoints } from './walk';

/**
 * Reference-data rules (docs/spec/RULES.md, "Reference data"): codes the operator manages. The data is
 * the in-memory snapshot of ReferenceDataCache, so each lookup is a Set membership test.
 * (PSR needs codes are checked in customers.ts; reference ownership and document existence are
 * asynchronous and run in validator.ts.)
 */
export function checkReferenceData(ctx: RuleContext): void {
  const { ref, account: a } = ctx;
  for (const { mp, attr } of meterPoints(ctx)) {
    const tariffs = ref.tariffCodes[mp.supply_type];
    const agreements = list(mp.agreements);
    for (let g = 0; g < agreements.length; g++) {
      if (!tariffs.has(agreements[g].tariff_code)) {
        ctx.errors.add('tariff_code_not_found', `${attr}.agreements.${g}.tariff_code`, `Unknown ${mp.supply_type.toLowerCase()} tariff ${agreements[g].tariff_code}.`);
      }
    }
    if (mp.mpid !== undefined && !ref.marketParticipants.has(mp.mpid)) {
      ctx.errors.add('market_participant_not_found', `${attr}.mpid`, `Unknown market participant ${mp.mpid}.`);
    }
    if (mp.shipper_mpid !== undefined && !ref.marketParticipants.has(mp.shipper_mpid)) {
      ctx.errors.add('market_participant_not_found', `${attr}.shipper_mpid`, `Unknown market participant ${mp.shipper_mpid}.`);
    }
    const meters = list(mp.meters);
    for (let k = 0; k < meters.length; k++) {
      const registers = list(meters[k].registers);
      for (let r = 0; r < registers.length; r++) {
        const tpr = registers[r].tpr;
        if (tpr !== undefined && !ref.tprs.has(tpr)) {
          ctx.errors.add('tpr_not_found', `${attr}.meters.${k}.registers.${r}.tpr`, `Unknown TPR ${tpr}.`);
        }
      }
    }
    const eacs = list(mp.eac_history);
    for (let e = 0; e < eacs.length; e++) {
      if (!ref.tprs.has(eacs[e].tpr)) ctx.errors.add('tpr_not_found', `${attr}.eac_history.${e}.tpr`, `Unknown TPR ${eacs[e].tpr}.`);
    }
  }
  for (const [c, attr] of okItems(ctx, a.account_campaigns, 'account_campaigns')) {
    if (!ref.campaigns.has(c.slug)) ctx.errors.add('campaign_not_found', `${attr}.slug`, `Unknown campaign ${c.slug}.`);
  }
  if (a.dunning_path !== undefined && ctx.ok('dunning_path') && !ref.dunningPaths.has(a.dunning_path.path_name)) {
    ctx.errors.add('dunning_path_not_found', 'dunning_path.path_name', `Unknown dunning path ${a.dunning_path.path_name}.`);
  }
  // As the platform: a dunning path starts today or later (a book mid-dunning restarts it from the migration day).
  const start = a.dunning_path?.start_date;
  if (start !== undefined && ctx.ok('dunning_path') && start < ctx.today) {
    ctx.errors.add('date_in_past', 'dunning_path.start_date', `The dunning path cannot start in the past (before ${ctx.today}).`);
  }
  for (const [r, attr] of okItems(ctx, a.references, 'references')) {
    if (!ref.referenceNamespaces.has(r.namespace)) {
      ctx.errors.add('invalid_reference_namespace', `${attr}.namespace`, `Unknown reference namespace ${r.namespace}.`);
    }
  }
  for (const [debt, attr] of debtRecords(ctx)) {
    const agency = debt.agency_name;
    if (agency !== undefined && agency.trim() !== '' && !ref.debtCollectionAgencies.has(agency)) {
      ctx.errors.add('debt_collection_agency_does_not_exist', `${attr}.agency_name`, `Unknown debt collection agency ${agency}.`);
    }
  }
}
