import { section } from './entry';
import { bool, int, obj, opt, str } from './fields';
import { Product } from './shared';

const entry = section('Agreement events');

const agreementUpdatedV1 = { agreement_id: int(), changes: obj(), is_override: opt(bool()) };

export const AGREEMENT_EVENTS = [
  entry(
    'agreement.created',
    'v1',
    {
      agreement_id: int(),
      account_number: str(),
      valid_from: str(),
      product_code: str(),
      account_contract_identifier: opt(str()),
      business_contract_identifier: opt(str()),
    },
    { description: 'An agreement was created; this service emits one per imported agreement.' },
  ),
  entry('agreement.revoked', 'v1', { agreement_id: int() }),
  entry('agreement.revoked', 'v2', { agreement_id: int(), account_number: str() }),
  entry('agreement.terminated', 'v1', { agreement_id: int() }),
  entry('agreement.terminated', 'v2', { agreement_id: int(), account_number: str() }),
  entry('agreement.updated', 'v1', agreementUpdatedV1),
  entry('agreement.updated', 'v2', { ...agreementUpdatedV1, account_number: str() }),
  entry('agreement.rollover.completed', 'v1', {
    account_number: str(),
    supply_point_id: str(),
    expiring_agreement_id: int(),
    rolled_on_to_agreement_id: int(),
    new_product: Product,
    rolled_on_to_agreement_valid_from: str(),
    rolled_on_to_agreement_valid_to: str(),
  }),
] as const;
