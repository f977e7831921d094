import { okItems, type RuleContext } from './context';

/**
 * The same supply address twice (line 1, line 2, postcode). Compared case-insensitively, with
 * spaces collapsed and the postcode compacted, so that formatting does not hide a duplicate.
 */
export function checkSupplyAddresses(ctx: RuleContext): void {
  const seen = new Set<string>();
  for (const [address, attr] of okItems(ctx, ctx.account.supply_addresses, 'supply_addresses')) {
    const norm = (s: string | undefined) => (s ?? '').trim().replace(/\s+/g, ' ').toUpperCase();
    const key = [norm(address.supply_address1), norm(address.supply_address2), norm(address.supply_postcode).replace(/ /g, '')].join('|');
    if (seen.has(key)) {
      ctx.errors.add('duplicate_supply_addresses_found', attr, 'This supply address is given twice.');
    }
    seen.add(key);
  }
}
