export * from './operations';
export * from './status';
export * from './types';
export * from './keys';
export * from './ids';
