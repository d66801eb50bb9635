export * from './events';
export * from './headers';
export * from './pause-check';
export * from './signature';
export * from './targets';
