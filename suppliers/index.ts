// suppliers/'s surface for the other features (docs/architecture.md, "Each feature's surface"):
// lint holds another feature's imports of suppliers/ to this file.
export { getSupplier, supplierCodes, type ImportSupplier } from './store';
export { databaseValidator } from './databaseValidator';
