// deploys/'s surface for the other features (docs/architecture.md, "Each feature's surface"):
// lint holds another feature's imports of deploys/ to this file.
export type { DeployStatus } from './status';
