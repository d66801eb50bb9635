export * from './idempotency';
export * from './pacer';
export * from './retry';
