export * from './content-disposition';
export * from './formats';
export * from './selection';
