export * from './content-disposition';
export * from './formats';
