export * from './idempotency';
export * from './pacer';
export * from './pagination';
export * from './retry';
