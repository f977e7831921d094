import type { Rng } from './rng';
import { normaliseUkPhone } from '../../account/rules/contacts';

/**
 * Names, contact details and addresses that pass the contact rules (account/rules/contacts.ts):
 * phone numbers valid in the UK numbering plan (checked with the same libphonenumber-js call as
 * the validator, not assumed), postcodes of real outward codes, emails on the reserved
 * example.* domains (real-looking, never a real person, never a "test" address).
 */

export const GIVEN_NAMES = [
  'Aoife', 'Tomasz', 'Priya', 'James', 'Olivia', 'Mohammed', 'Siobhán', 'Oliver', 'Amelia', 'Chidi',
  'Isla', 'Noah', 'Freya', 'Arjun', 'Zofia', 'Rhys', 'Eilidh', 'Kwame', 'Hannah', 'Mateusz',
  'Grace', 'Yusuf', 'Niamh', 'George', 'Mei', 'Callum', 'Fatima', 'Dafydd', 'Chloé', 'Ravi',
] as const;

export const FAMILY_NAMES = [
  'Ní Bhriain', 'Wójcik', 'Patel', 'Smith', 'Jones', 'Okafor', 'Williams', 'Taylor', 'Brown', 'Khan',
  'Evans', 'Thomas', 'MacDonald', 'Roberts', 'Nowak', 'Campbell', 'Mensah', 'Wright', "O'Neill", 'Hughes',
  'Chen', 'Begum', 'Davies', 'Stewart', 'Kowalski', 'Ahmed', 'Robinson', 'Lewis', 'Müller', 'Green',
] as const;

const TITLES = ['Mr', 'Ms', 'Mrs', 'Miss', 'Dr', 'Mx'] as const;

const EMAIL_DOMAINS = ['example.org', 'example.net', 'example.com', 'mail.example.co.uk'] as const;

/** Towns with real outward codes and the Ofcom drama-range landline block of their area. */
export const TOWNS = [
  { town: 'Leeds', outward: ['LS1', 'LS6', 'LS8', 'LS12'], landline: '0113 496 0' },
  { town: 'Manchester', outward: ['M1', 'M14', 'M20'], landline: '0161 496 0' },
  { town: 'Birmingham', outward: ['B15', 'B29', 'B13'], landline: '0121 496 0' },
  { town: 'Bristol', outward: ['BS8', 'BS6', 'BS3'], landline: '0117 496 0' },
  { town: 'Edinburgh', outward: ['EH3', 'EH9', 'EH6'], landline: '0131 496 0' },
  { town: 'Cardiff', outward: ['CF10', 'CF24', 'CF5'], landline: '029 2018 0' },
  { town: 'Glasgow', outward: ['G12', 'G41', 'G3'], landline: '0141 496 0' },
  { town: 'Newcastle upon Tyne', outward: ['NE1', 'NE2', 'NE6'], landline: '0191 498 0' },
  { town: 'Sheffield', outward: ['S10', 'S7', 'S11'], landline: '0114 496 0' },
  { town: 'Liverpool', outward: ['L17', 'L8', 'L15'], landline: '0151 496 0' },
  { town: 'London', outward: ['E8', 'N16', 'SE15', 'SW1A', 'NW5'], landline: '020 7946 0' },
  { town: 'York', outward: ['YO1', 'YO10', 'YO31'], landline: '01904 96' },
] as const;
export type Town = (typeof TOWNS)[number];

const STREETS = [
  'Harbour Row', 'Station Road', 'Church Lane', 'Victoria Street', 'Mill Lane', 'Park Avenue', 'Queens Road',
  'The Crescent', 'Orchard Close', 'Highfield Road', 'Kings Terrace', 'Meadow Way', 'Chapel Street', 'Albert Grove',
] as const;

const INWARD_LETTERS = 'ABDEFGHJLNPQRSTUWXYZ';

export interface Person {
  given_name: string;
  family_name: string;
  email: string;
  mobile: string;
  landline: string;
  date_of_birth: string;
  title: string;
  salutation: string;
}

export interface Address {
  lines: [string, string, string, string, string];
  postcode: string;
  town: Town;
}

function ascii(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
}

/** A UK mobile in national format ("07911 123456"), checked against the numbering plan. */
export function mobile(rng: Rng): string {
  for (let attempt = 0; attempt < 20; attempt++) {
    const n = `07${rng.int(4, 9)}${rng.int(0, 9)}${rng.int(0, 9)} ${String(rng.int(0, 999_999)).padStart(6, '0')}`;
    if (normaliseUkPhone(n) !== null) return n;
  }
  // 07400–07409 are allocated in full (checked against the numbering plan): the fallback keeps
  // the generator total.
  return `0740${rng.int(0, 9)} ${String(rng.int(0, 999_999)).padStart(6, '0')}`;
}

/** A landline in the drama range of the town's area code. */
export function landline(rng: Rng, town: Town): string {
  const rest = 11 - town.landline.replace(/ /g, '').length;
  return town.landline + String(rng.int(0, 10 ** rest - 1)).padStart(rest, '0');
}

export function postcode(rng: Rng, town: Town): string {
  return `${rng.pick(town.outward)} ${rng.int(1, 9)}${rng.pick([...INWARD_LETTERS])}${rng.pick([...INWARD_LETTERS])}`;
}

export function address(rng: Rng, town: Town, houseNumber: number): Address {
  const flat = rng.chance(0.25);
  const street = `${houseNumber} ${rng.pick(STREETS)}`;
  return {
    lines: flat ? [`Flat ${rng.int(1, 12)}`, street, '', town.town, ''] : [street, '', '', town.town, ''],
    postcode: postcode(rng, town),
    town,
  };
}

/** A person born between 18 and 90 years before `today`; `n` keeps emails distinct in an account. */
export function person(rng: Rng, town: Town, today: string, n: number, family?: string): Person {
  const given = rng.pick(GIVEN_NAMES);
  const familyName = family ?? rng.pick(FAMILY_NAMES);
  const year = Number(today.slice(0, 4)) - rng.int(18, 90);
  const dob = `${year}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`;
  const local = `${ascii(given)}.${ascii(familyName)}${n > 0 ? n : ''}${rng.chance(0.3) ? rng.int(1, 99) : ''}`;
  return {
    given_name: given,
    family_name: familyName,
    email: `${local}@${rng.pick(EMAIL_DOMAINS)}`,
    mobile: mobile(rng),
    landline: rng.chance(0.6) ? landline(rng, town) : '',
    date_of_birth: dob,
    title: rng.pick(TITLES),
    salutation: `Dear ${given}`,
  };
}
