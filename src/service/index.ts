// The service's side of the contract: what the sandbox (and tests that play the service) need and the
// nodes never run. Nothing here may be imported by shipped code (lint and a dist test hold that).
export * from './artifact-selection';
export * from './canonical-json';
export * from './error-catalogue';
export * from './format-content-disposition';
export * from './signing';
