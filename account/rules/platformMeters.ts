import type { RuleContext } from './context';
import { given, records, text, type FieldOf, type Rec } from './loose';
import { meterPoints } from './walk';

/**
 * The platform's meter point and meter fields that belong to one fuel: its document describes an
 * electricity and a gas meter point (a oneOf by `supply_type`) and an electricity and a gas meter,
 * and these fields are in one of the two only. The fields this service's Account had before the
 * platform's (profile_class, ssc, eac_history, aq_history, shipper_mpid, registers,
 * gas_number_of_digits) keep being accepted on either fuel.
 */
const MP = 'supply_addresses.*.meter_points.*';
const METER_POINT_FIELDS: Readonly<Record<'ELECTRICITY' | 'GAS', readonly FieldOf<typeof MP>[]>> = {
  ELECTRICITY: ['agents', 'capacity_values', 'configuration_periods', 'dc_to_appoint', 'export_type', 'is_deenergised', 'measurement_class', 'mop_to_appoint'],
  GAS: ['ldz', 'mam_to_appoint'],
};
const METER_FIELDS: Readonly<Record<'ELECTRICITY' | 'GAS', readonly FieldOf<`${typeof MP}.meters.*`>[]>> = {
  ELECTRICITY: [],
  // An electricity meter is billed to a date on its settlement registers, not on the meter.
  GAS: ['units_of_measure', 'last_billed_to_date'],
};

const SMART_FIELDS = ['smart_commissioned_on', 'smart_device_id'] as const;

/**
 * A DCC device id: an EUI-64, 16 hexadecimal digits, either plain or in eight pairs separated by
 * hyphens (the platform's example "01-23-45-67-89-AB-CD-EF"), in either case. Kept as sent.
 */
const DEVICE_ID = /^(?:[0-9A-Fa-f]{16}|[0-9A-Fa-f]{2}(?:-[0-9A-Fa-f]{2}){7})$/;

/**
 * Rules of the platform's meter point and meter fields (docs/spec/RULES.md, "Platform fields"):
 * - a fuel's own field on the other fuel's meter point or meter: field_not_for_supply_type;
 * - smart_commissioned_on and smart_device_id only on a smart meter, one whose smart_type is given
 *   and not NONE (smart_details_provided_for_non_smart_meter); the device id well formed
 *   (invalid_smart_device_id); commissioning not after today (future_smart_meter_commission_date)
 *   nor before the meter was installed (smart_commissioned_before_installed);
 * - prepay_customer_reference_number only on a prepay meter, like prepay_details
 *   (prepay_details_on_non_prepay_meter: the platform's "prepay fields only on prepay meters"); on
 *   an electricity meter it is an integer once whitespace is removed
 *   (invalid_prepay_customer_reference_number).
 * A meter removed before it was installed is found with the other periods (periods.ts).
 */
export function checkPlatformMeters(ctx: RuleContext): void {
  for (const { mp: typed, attr } of meterPoints(ctx)) {
    const mp = typed as unknown as Rec<typeof MP>;
    const fuel = text(mp, 'supply_type');
    if (fuel !== 'ELECTRICITY' && fuel !== 'GAS') continue;
    const other = fuel === 'ELECTRICITY' ? 'GAS' : 'ELECTRICITY';
    for (const field of METER_POINT_FIELDS[other]) {
      if (given(mp, field)) ctx.errors.add('field_not_for_supply_type', `${attr}.${field}`, `${field} is a field of ${other.toLowerCase()} meter points only.`);
    }
    for (const [meter, meterAttr] of records(ctx, mp, 'meters', `${attr}.meters`)) {
      for (const field of METER_FIELDS[other]) {
        if (given(meter, field)) ctx.errors.add('field_not_for_supply_type', `${meterAttr}.${field}`, `${field} is a field of ${other.toLowerCase()} meters only.`);
      }
      const smartType = text(meter, 'smart_type');
      const smart = smartType !== undefined && smartType !== 'NONE';
      for (const field of SMART_FIELDS) {
        if (!smart && given(meter, field)) {
          ctx.errors.add('smart_details_provided_for_non_smart_meter', `${meterAttr}.${field}`, `${field} is given for a meter that is not smart (smart_type ${smartType ?? 'not given'}).`);
        }
      }
      const deviceId = text(meter, 'smart_device_id');
      if (deviceId !== undefined && !DEVICE_ID.test(deviceId)) {
        ctx.errors.add('invalid_smart_device_id', `${meterAttr}.smart_device_id`, 'A smart device id is a DCC EUI-64: 16 hexadecimal digits, plain or in pairs separated by hyphens.');
      }
      const commissioned = text(meter, 'smart_commissioned_on');
      if (commissioned !== undefined) {
        if (commissioned > ctx.today) ctx.errors.add('future_smart_meter_commission_date', `${meterAttr}.smart_commissioned_on`, 'The smart meter is commissioned in the future.');
        const installed = text(meter, 'installed_on');
        if (installed !== undefined && commissioned < installed) {
          ctx.errors.add('smart_commissioned_before_installed', `${meterAttr}.smart_commissioned_on`, 'The smart meter is commissioned before it was installed.');
        }
      }
      const prepayReference = text(meter, 'prepay_customer_reference_number');
      if (prepayReference === undefined) continue;
      if (meter.is_prepay !== true) {
        ctx.errors.add('prepay_details_on_non_prepay_meter', `${meterAttr}.prepay_customer_reference_number`, 'A prepay customer reference number is given for a meter that is not prepay.');
      } else if (fuel === 'ELECTRICITY' && !/^[+-]?\d+$/.test(prepayReference.replace(/\s+/g, ''))) {
        ctx.errors.add('invalid_prepay_customer_reference_number', `${meterAttr}.prepay_customer_reference_number`, 'An electricity prepay customer reference number is a whole number (spaces aside).');
      }
    }
  }
}
