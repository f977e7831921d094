import { check, errorsOf, example } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Mutate = (a: any) => void;

/** The errors (`code@attr`) of the example account after `mutate`. */
export async function errorsAfter(mutate: Mutate): Promise<string[]> {
  const account = example();
  mutate(account);
  return errorsOf(await check(account));
}

/** Shortcuts into the example: its electricity and gas meter points and their first meters. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const elec = (a: any) => a.supply_addresses[0].meter_points[0];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const gas = (a: any) => a.supply_addresses[0].meter_points[1];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const elecMeter = (a: any) => elec(a).meters[0];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const gasMeter = (a: any) => gas(a).meters[0];
