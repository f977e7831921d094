import { errorsAfter, type Mutate } from './mutate';

/** The platform's account-level fields: unknown_occupier and operations_team_name (docs/api.md, "Account fields"). */
describe('platform fields of the Account', () => {
  it.each<[string, Mutate, string[]]>([
    ['the platform example flag unknown_occupier: false validates', (a) => (a.unknown_occupier = false), []],
    ['unknown_occupier: null validates (the platform documents it nullable)', (a) => (a.unknown_occupier = null), []],
    ['unknown_occupier: true with no customers validates', (a) => ((a.unknown_occupier = true), (a.customers = [])), []],
    ['unknown_occupier: true with customers is customer_with_unknown_occupier', (a) => (a.unknown_occupier = true), ['customer_with_unknown_occupier@customers']],
    ['unknown_occupier as a string is invalid', (a) => (a.unknown_occupier = 'false'), ['invalid@unknown_occupier']],
    ['operations_team_name validates', (a) => (a.operations_team_name = 'Migration Team A'), []],
    ['a blank operations_team_name is blank', (a) => (a.operations_team_name = ''), ['blank@operations_team_name']],
    ['operations_team_name longer than 128 is max_length', (a) => (a.operations_team_name = 'x'.repeat(129)), ['max_length@operations_team_name']],
    ['operations_team_name as a number is invalid', (a) => (a.operations_team_name = 7), ['invalid@operations_team_name']],
    ['a field neither the spec nor the platform documents is unknown_field', (a) => (a.partner_organisation = []), ['unknown_field@partner_organisation']],
    ['a platform field is accepted (partner_organisations)', (a) => (a.partner_organisations = []), []],
  ])('%s', async (_name, mutate, expected) => {
    expect(await errorsAfter(mutate)).toEqual(expected);
  });
});
