// registration/'s surface for the other features (docs/architecture.md, "Each feature's surface"):
// lint holds another feature's imports of registration/ to this file.
export { type MeterPointStatusItem, meterPointStatuses } from './meterPointStatuses';
export { METER_POINT_STATUS } from './http/meterPointStatuses';
