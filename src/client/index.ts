export * from './idempotency';
export * from './pacer';
export * from './pagination';
export * from './retry';
export * from './answer-limits';
export * from './base-url';
export * from './rate-share';
