export * from './content-disposition';
export * from './file-name';
export * from './formats';
