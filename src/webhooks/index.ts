export * from './events';
export * from './headers';
export * from './signature';
export * from './targets';
