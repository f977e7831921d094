// emails/'s surface for the other features (docs/architecture.md, "Each feature's surface"):
// lint holds another feature's imports of emails/ to this file.
export { emailTemplatesOf } from './store';
